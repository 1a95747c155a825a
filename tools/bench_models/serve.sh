#!/usr/bin/env bash
# Throughput with one and two caller threads (`sr serve`, back to back, one
# intra-op thread each) on the models of save_models.py, and the scaling
# (calls per second with two callers over one), one table.
#
#   tools/bench_models/serve.sh [--sr PATH] [--seconds S]
#
# PATH defaults to bazel-bin/tools/sr/sr (bazel build //tools:sr).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

sr=bazel-bin/tools/sr/sr
seconds=3
while [ $# -gt 0 ]; do
  case "$1" in
    --sr) sr=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    *) echo "serve.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -x "$sr" ] || { echo "serve.sh: no sr binary at $sr (bazel build //tools:sr)" >&2; exit 1; }

export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
/usr/bin/python3 tools/bench_models/save_models.py "$dir" >/dev/null

calls_per_second() {  # model, threads
  "$sr" serve "$dir/$1.pt" --inputs="$dir/${1}_inputs.pt" --threads="$2" --seconds="$seconds" \
    2>"$dir/err" | awk '/^calls\/s/ {print $2}' ||
    { echo "serve.sh: $1 failed:" >&2; cat "$dir/err" >&2; exit 1; }
}
printf '%-14s %12s %12s %9s\n' model "1 thread/s" "2 threads/s" scaling
for model in ads inplace multi_output lstm dlrm control_flow forked_ads2 forked_ads3; do
  one=$(calls_per_second "$model" 1)
  two=$(calls_per_second "$model" 2)
  awk -v m="$model" -v a="$one" -v b="$two" 'BEGIN {printf "%-14s %12.0f %12.0f %9.2f\n", m, a, b, b / a}'
done
