#!/usr/bin/env bash
# Runs clang-tidy with .clang-tidy's checks on every C++ source file changed
# since .clang-format was added (the files tools/check_format.sh checks);
# CI runs it. Needs `bazel build //...` first for generated headers.
#
#   tools/check_tidy.sh [FILE.cc ...]     # exit 1 if a check fails
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v clang-tidy >/dev/null || { echo "check_tidy: clang-tidy is missing (tools/setup.sh)" >&2; exit 1; }

if [ $# -gt 0 ]; then
  files=("$@")
else
  baseline=$(git log --diff-filter=A --format=%H -- .clang-format | tail -n 1)
  mapfile -t files < <( (git diff --name-only "$baseline" -- '*.cc';
                         git ls-files --others --exclude-standard -- '*.cc') | sort -u)
fi

failed=()
checked=0
for file in "${files[@]}"; do
  [ -f "$file" ] || continue
  # The Python extension needs CPython's headers; libFuzzer targets clang's.
  case "$file" in fuzz/*_fuzzer.cc) continue ;; esac
  checked=$((checked + 1))
  if ! clang-tidy --quiet "$file" -- -x c++ -std=c++17 -I. -Ibazel-bin \
      -isystem /usr/include/torch/csrc/api/include -isystem /usr/include/python3.11 \
      >"/tmp/check_tidy.$$" 2>&1; then
    failed+=("$file")
    grep -E "error:|warning:" "/tmp/check_tidy.$$" | head -n 5 >&2
  fi
done
rm -f "/tmp/check_tidy.$$"
if [ "${#failed[@]}" -gt 0 ]; then
  echo "check_tidy: .clang-tidy's checks fail in: ${failed[*]}" >&2
  exit 1
fi
echo "check_tidy: $checked changed C++ files pass .clang-tidy's checks"
