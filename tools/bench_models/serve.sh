#!/usr/bin/env bash
# Throughput with one and two caller threads (`sr throughput`, back to back, one
# intra-op thread each) on the models of save_models.py, and the scaling
# (calls per second with two callers over one), one table. One and two
# callers take turns, --rounds times, --seconds each; the table has the
# median of each and the median of the rounds' own scalings (each round's
# two runs are adjacent in time: a VM's neighbours, which make the speed of
# single runs vary by up to 2x, slow both alike), and of the rounds' ratios
# of the median time in a call with two callers to one (1.00: the callers
# do not slow each other down inside the runtime).
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
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "serve.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -x "$sr" ] || { echo "serve.sh: no sr binary at $sr (bazel build //tools:sr)" >&2; exit 1; }

export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
/usr/bin/python3 tools/bench_models/save_models.py "$dir" >/dev/null 2>&1

# "calls/s median-latency-us" of one `sr throughput` run.
serve() {  # model, threads
  "$sr" throughput "$dir/$1.pt" --inputs="$dir/${1}_inputs.pt" --threads="$2" --seconds="$seconds" \
    2>"$dir/err" | awk '/^calls\/s/ {c = $2} /^latency/ {sub(",", "", $4); l = $4} END {print c, l}' ||
    { echo "serve.sh: $1 failed:" >&2; cat "$dir/err" >&2; exit 1; }
}
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
printf '%-14s %12s %12s %9s %14s\n' model "1 thread/s" "2 threads/s" scaling "latency 2 / 1"
for model in $models; do
  [ -f "$dir/$model.pt" ] || { echo "serve.sh: no model $model" >&2; exit 2; }
  : >"$dir/one"; : >"$dir/two"; : >"$dir/scaling"; : >"$dir/latency"
  for ((r = 0; r < rounds; r++)); do
    one_caller=$(serve "$model" 1)
    two_callers=$(serve "$model" 2)
    read -r a a_latency <<<"$one_caller"
    read -r b b_latency <<<"$two_callers"
    echo "$a" >>"$dir/one"
    echo "$b" >>"$dir/two"
    awk -v a="$a" -v b="$b" 'BEGIN {print b / a}' >>"$dir/scaling"
    awk -v a="$a_latency" -v b="$b_latency" 'BEGIN {print b / a}' >>"$dir/latency"
  done
  awk -v m="$model" -v a="$(median <"$dir/one")" -v b="$(median <"$dir/two")" \
    -v s="$(median <"$dir/scaling")" -v l="$(median <"$dir/latency")" \
    'BEGIN {printf "%-14s %12.0f %12.0f %9.2f %14.2f\n", m, a, b, s, l}'
done
