#!/usr/bin/env bash
# The shape sweep: how ours and PyTorch's Static Runtime meet input shapes
# they have not seen. For each model of save_shape_sweep_models.py (a CNN,
# an encoder with padding masks, an LSTM, a model branching and looping on
# its shapes), `sr sweep` calls it at each of its shapes in turn (the first
# call: time and resident memory added; then steady calls), then at shapes
# drawn at random; once with our runtime and once with PyTorch SR, each in a
# process of its own (so that resident memory is that side's), alternating
# A B A B over --rounds rounds. Prints per shape the first call and the
# steady call of each side, ours/PyTorch SR steady, ours first/steady and
# the memory each first call added, and per model the resident memory the
# shapes added to each side (shape_sweep_table.py).
#
#   tools/bench_models/shape_sweep.sh [--models DIR] [--only NAME,...] [--rounds N]
#                                     [--random-calls N] [--sr PATH] [-- extra sr flags]
#
# DIR (default /tmp/shape_sweep_models) is made by save_shape_sweep_models.py
# when it has no models. One intra-op thread; PyTorch SR's products run on
# the best OpenBLAS core this CPU runs (sr's default; -- --blas-core=NAME
# chooses another).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

sr=bazel-bin/tools/sr/sr
models=/tmp/shape_sweep_models
only=""
rounds=2
random_calls=200
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --models) models="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --random-calls) random_calls="$2"; shift 2 ;;
    --sr) sr="$2"; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "shape_sweep.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ -x "$sr" ] || { echo "shape_sweep.sh: $sr is missing (bazel build //tools/sr:sr)" >&2; exit 1; }
if ! ls "$models"/*.shapes >/dev/null 2>&1; then
  /usr/bin/python3 tools/bench_models/save_shape_sweep_models.py "$models" ${only:+--only "$only"}
fi
names=${only//,/ }
[ -n "$names" ] || names=$(/usr/bin/python3 tools/bench_models/save_shape_sweep_models.py --list)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for name in $names; do
  shapes=$(paste -sd'|' "$models/$name.shapes")
  for round in $(seq 1 "$rounds"); do
    sides=(ours pytorch-sr)
    [ $((round % 2)) -eq 0 ] && sides=(pytorch-sr ours)
    for side in "${sides[@]}"; do
      if ! "$sr" sweep "$models/$name.pt" --shapes="$shapes" --side="$side" \
        --random-calls="$random_calls" --json="$out/$name.$side.$round.json" "${extra[@]}" \
        >/dev/null 2>"$out/stderr"; then
        echo "shape_sweep.sh: sr sweep $name --side=$side failed:" >&2
        cat "$out/stderr" >&2
        exit 1
      fi
    done
  done
done
/usr/bin/python3 tools/bench_models/shape_sweep_table.py "$out" $names
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
