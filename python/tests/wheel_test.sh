#!/usr/bin/env bash
# Installs the static_runtime wheel into a fresh venv (Debian's torch and
# torchvision from the system site packages; no network: --no-index) and runs
# tests/wheel_check.py with it from a temporary directory, with no PYTHONPATH.
set -euo pipefail

runfiles="${TEST_SRCDIR:?}/${TEST_WORKSPACE:?}/python"
wheels=("$runfiles"/dist/static_runtime-*.whl)
[ "${#wheels[@]}" -eq 1 ] || { echo "wheel_test: expected one wheel, found: ${wheels[*]}" >&2; exit 1; }

tmp=$(mktemp -d "${TEST_TMPDIR:-/tmp}/wheel_test.XXXXXX")
/usr/bin/python3 -m venv --system-site-packages "$tmp/venv"
"$tmp/venv/bin/python" -m pip install --no-index --no-cache-dir --disable-pip-version-check \
  --quiet "${wheels[0]}"
mkdir "$tmp/work"
cp "$runfiles/tests/wheel_check.py" "$tmp/work/"
cd "$tmp/work"
env -u PYTHONPATH -u PYTHONHOME HOME="$tmp" "$tmp/venv/bin/python" wheel_check.py "$tmp/venv"
