#!/usr/bin/env bash
# Throughput with one and two caller threads (`sr serve`, back to back, one
# intra-op thread each) on the models of save_models.py, and the scaling
# (calls per second with two callers over one), one table. One and two
# callers take turns, --rounds times, --seconds each; the table has the
# median of each and the median of the rounds' own scalings (each round's
# two runs are adjacent in time: a VM's neighbours, which make the speed of
# single runs vary by up to 2x, slow both alike).
#
#   tools/bench_models/serve.sh [--sr PATH] [--seconds S] [--rounds N] [--models "A B"]
#
# PATH defaults to bazel-bin/tools/sr/sr (bazel build //tools:sr); MODELS
# to every model of the table.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

sr=bazel-bin/tools/sr/sr
seconds=1
rounds=5
models="ads dict_ads containers inplace multi_output lstm dlrm control_flow transformer forked_ads2 forked_ads3"
while [ $# -gt 0 ]; do
  case "$1" in
    --sr) sr=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "serve.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -x "$sr" ] || { echo "serve.sh: no sr binary at $sr (bazel build //tools:sr)" >&2; exit 1; }

export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
/usr/bin/python3 tools/bench_models/save_models.py "$dir" >/dev/null 2>&1

calls_per_second() {  # model, threads
  "$sr" serve "$dir/$1.pt" --inputs="$dir/${1}_inputs.pt" --threads="$2" --seconds="$seconds" \
    2>"$dir/err" | awk '/^calls\/s/ {print $2}' ||
    { echo "serve.sh: $1 failed:" >&2; cat "$dir/err" >&2; exit 1; }
}
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
printf '%-14s %12s %12s %9s\n' model "1 thread/s" "2 threads/s" scaling
for model in $models; do
  [ -f "$dir/$model.pt" ] || { echo "serve.sh: no model $model" >&2; exit 2; }
  : >"$dir/one"; : >"$dir/two"; : >"$dir/scaling"
  for ((r = 0; r < rounds; r++)); do
    a=$(calls_per_second "$model" 1)
    b=$(calls_per_second "$model" 2)
    echo "$a" >>"$dir/one"
    echo "$b" >>"$dir/two"
    awk -v a="$a" -v b="$b" 'BEGIN {print b / a}' >>"$dir/scaling"
  done
  one=$(median <"$dir/one")
  two=$(median <"$dir/two")
  scaling=$(median <"$dir/scaling")
  awk -v m="$model" -v a="$one" -v b="$two" -v s="$scaling" \
    'BEGIN {printf "%-14s %12.0f %12.0f %9.2f\n", m, a, b, s}'
done
