#!/usr/bin/env bash
# sr verify on a scripted torchvision detection model
# (testdata/save_detection_model.py): without torchvision's operator library
# it must fail to load, naming the missing operator; with --op-libraries it
# must pass every check under every option set (loops, branches, lists of
# boxes, dict outputs, torchvision::nms and roi_align in fallback).
set -uo pipefail
SR="${TEST_SRCDIR}/${TEST_WORKSPACE}/tools/sr/sr"
SAVE="${TEST_SRCDIR}/${TEST_WORKSPACE}/tools/sr/testdata/save_detection_model.py"
models="${TEST_TMPDIR}/models"
export HOME="${TEST_TMPDIR}"  # torch writes its caches there
library=$(/usr/bin/python3 "$SAVE" "$models" 2>/dev/null) || { echo "FAIL: saving the model"; exit 1; }
model="$models/fasterrcnn.pt"
inputs="--inputs=$models/fasterrcnn_inputs.pt"

failures=0
if "$SR" verify "$model" "$inputs" > "${TEST_TMPDIR}/without.txt" 2>&1 ||
    ! grep -q "Unknown builtin op: torchvision::nms" "${TEST_TMPDIR}/without.txt"; then
  echo "FAIL: without --op-libraries:"
  cat "${TEST_TMPDIR}/without.txt"
  failures=$((failures + 1))
fi
if "$SR" verify "$model" "$inputs" --op-libraries=/nonexistent/ops.so \
    > "${TEST_TMPDIR}/missing.txt" 2>&1 ||
    ! grep -q -- "--op-libraries: cannot load /nonexistent/ops.so" "${TEST_TMPDIR}/missing.txt"; then
  echo "FAIL: a missing library:"
  cat "${TEST_TMPDIR}/missing.txt"
  failures=$((failures + 1))
fi
if ! "$SR" verify "$model" "$inputs" --op-libraries="$library" > "${TEST_TMPDIR}/with.txt" 2>&1; then
  echo "FAIL: sr verify with --op-libraries=$library:"
  cat "${TEST_TMPDIR}/with.txt"
  failures=$((failures + 1))
fi
grep "verify:" "${TEST_TMPDIR}/with.txt"
exit $failures
