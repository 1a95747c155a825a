#!/bin/bash
# Runs every libFuzzer target for SECONDS each, one after the other, built by
# clang with AddressSanitizer (bazel --config=fuzz).
#
#   tools/fuzz.sh SECONDS
#
# Each fuzzer starts from its checked-in seed corpus (fuzz/corpus/<kind>) plus
# what earlier runs on this machine found interesting
# (~/.cache/static_runtime/fuzz/<kind>). A crash, hang (> 10 s per input),
# out-of-memory (> 4 GiB) or sanitizer report is a finding: its input is kept
# in ~/.cache/static_runtime/fuzz/findings/ and the script exits 1. Put a
# fixed finding into fuzz/corpus/<kind>/ so `bazel test //fuzz/...` replays it.
set -euo pipefail

if [[ $# -ne 1 || ! "$1" =~ ^[0-9]+$ || "$1" -eq 0 ]]; then
  echo "usage: tools/fuzz.sh SECONDS   (seconds per fuzzer, > 0)" >&2
  exit 2
fi
seconds="$1"
cd "$(dirname "$0")/.."

bazel build --config=fuzz //fuzz:ir_fuzzer //fuzz:model_fuzzer //fuzz:package_fuzzer \
  //fuzz:package_records_fuzzer //fuzz:http_request_fuzzer //fuzz:grpc_request_fuzzer
bin="$(bazel info --config=fuzz bazel-bin)/fuzz"
state="${HOME}/.cache/static_runtime/fuzz"
mkdir -p "${state}/findings"

# LibTorch is not instrumented (no container-overflow checks); a huge
# allocation asked for by a fuzzed graph must fail as an error, not abort.
export ASAN_OPTIONS="detect_container_overflow=0:detect_odr_violation=0:allocator_may_return_null=1"
export LSAN_OPTIONS="suppressions=$(pwd)/fuzz/lsan.supp:print_suppressions=0"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1

status=0
for kind in ir model package package_records http_request grpc_request; do
  mkdir -p "${state}/${kind}"
  echo "== ${kind}_fuzzer for ${seconds} s"
  start=$(date +%s)
  if ! "${bin}/${kind}_fuzzer" "${state}/${kind}" "fuzz/corpus/${kind}" \
      -max_total_time="${seconds}" -timeout=10 -rss_limit_mb=4096 -max_len=65536 \
      -artifact_prefix="${state}/findings/${kind}-" -print_final_stats=1 \
      > "${state}/${kind}.log" 2>&1; then
    status=1
    echo "FINDING in ${kind}_fuzzer; log: ${state}/${kind}.log"
    grep -E "ERROR|==[0-9]+==|Test unit written" "${state}/${kind}.log" | head -5 || true
  fi
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "${state}/${kind}.log" || true
  echo "${kind}_fuzzer: $(( $(date +%s) - start )) s, corpus $(ls "${state}/${kind}" | wc -l) inputs"
done
exit "${status}"
