#!/usr/bin/env bash
# The CPU matrix: runs the tests whose expected results depend on which
# kernels the CPU runs (golden comparisons with the JIT, kernel property
# tests, the Python package's tests; the targets tagged "cpu_matrix") under
# the kernels of other CPUs, on this machine. OpenBLAS takes its kernel set
# from OPENBLAS_CORETYPE, oneDNN caps its ISA at ONEDNN_MAX_CPU_ISA
# (DNNL_MAX_CPU_ISA in oneDNN 2.6) and ATen its vector kernels at
# ATEN_CPU_CAPABILITY; each entry is a Bazel config (.bazelrc, "cpu_NAME")
# that sets them for the tests. Only the tests run again: the build is the
# one `bazel test //...` made.
#
# An entry whose kernels this CPU cannot execute (AVX-512 kernels on an AVX2
# machine: OpenBLAS would die of an illegal instruction) is skipped, and
# says which instructions it lacks.
#
# Usage: tools/cpu_matrix.sh [--list] [ENTRY...]   (default: every entry)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# entry: what it stands for
ENTRIES=(
  prescott   # OpenBLAS's SSE3 kernels (no FMA), what it picks on CPUs it does not know; oneDNN uncapped
  haswell    # an AVX2 machine: OpenBLAS Haswell, oneDNN and ATen capped at AVX2
  skylakex   # OpenBLAS's AVX-512 kernels, oneDNN uncapped
  zen        # OpenBLAS's Zen kernels (AVX2, FMA), oneDNN capped at AVX2
)

# entry -> the /proc/cpuinfo flags its kernels execute
declare -A NEEDS=(
  [prescott]="pni"
  [haswell]="avx2 fma"
  [skylakex]="avx512f avx512bw avx512dq avx512vl"
  [zen]="avx2 fma"
)

# The flags of `entry` this CPU lacks (none: it can run the entry).
lacking() {
  local flags
  flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
  for flag in ${NEEDS[$1]}; do
    [[ "$flags" == *" $flag "* ]] || printf '%s ' "$flag"
  done
}

usage() {
  echo "usage: tools/cpu_matrix.sh [--list] [ENTRY...]"
  echo "entries: ${ENTRIES[*]}"
}

case "${1:-}" in
  -h | --help) usage; exit 0 ;;
  --list)
    grep -E '^test:cpu_' .bazelrc
    exit 0
    ;;
esac

selected=("$@")
[ "${#selected[@]}" -eq 0 ] && selected=("${ENTRIES[@]}")
for entry in "${selected[@]}"; do
  if ! printf '%s\n' "${ENTRIES[@]}" | grep -qx "$entry"; then
    echo "cpu_matrix: unknown entry '$entry'" >&2
    usage >&2
    exit 2
  fi
done

targets=$(bazel query 'attr(tags, "\bcpu_matrix\b", tests(//...))' 2>/dev/null) || {
  echo "cpu_matrix: bazel query for the tagged tests failed" >&2
  exit 1
}
# shellcheck disable=SC2086  # one target per word
echo "cpu_matrix: $(echo $targets | wc -w) test targets under: ${selected[*]}"

status=0
for entry in "${selected[@]}"; do
  echo "== cpu_matrix: $entry"
  missing=$(lacking "$entry")
  if [ -n "$missing" ]; then
    echo "cpu_matrix: skipping $entry: this CPU lacks ${missing% } (its kernels cannot run here)"
    continue
  fi
  grep -E "^test:cpu_$entry " .bazelrc
  start=$(date +%s)
  # shellcheck disable=SC2086
  bazel test --config="cpu_$entry" -- $targets || status=1
  echo "cpu_matrix: $entry took $(($(date +%s) - start)) s"
done
exit "$status"
