#!/usr/bin/env bash
# Runs the sr tool for the macros of tools/model_test.bzl:
#   run_sr.sh [--expect-failure] [--json-in-working-directory=FILE] SR ARGS...
# --expect-failure: succeed only if sr exits 1 (it found a problem; 2 is a
# usage error, anything else a crash). --json-in-working-directory: add
# --json=FILE in the directory `bazel run` was started from.
set -uo pipefail

expect_failure=false
json=()
while [ $# -gt 0 ]; do
  case "$1" in
    --expect-failure) expect_failure=true; shift ;;
    --json-in-working-directory=*)
      json=("--json=${BUILD_WORKING_DIRECTORY:-$PWD}/${1#*=}"); shift ;;
    *) break ;;
  esac
done
sr=$1; shift

"$sr" "$@" "${json[@]}"
status=$?
if ! $expect_failure; then
  [ ${#json[@]} -gt 0 ] && [ $status -eq 0 ] && echo "wrote ${json[0]#--json=}"
  exit $status
fi
if [ $status -eq 1 ]; then
  echo "run_sr.sh: sr found the problem this test expects (exit 1)"
  exit 0
fi
echo "run_sr.sh: expected sr to find a problem (exit 1), got exit $status" >&2
exit 1
