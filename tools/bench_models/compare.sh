#!/usr/bin/env bash
# Times static_runtime, the TorchScript JIT and PyTorch's own Static Runtime
# in one process per model (`sr bench --against=pytorch-sr`, interleaved, one
# thread) on the models of save_models.py and the two embedded models (or,
# with --cnn, the torchvision CNNs of save_cnns.py; with --broad, the broad
# corpus of save_broad_corpus.py, or its models NAME,...; with --quantized, the
# quantized corpus of save_quantized_corpus.py, each model loaded with the
# quantized engine it was saved for), and prints one table:
# ratios ours/JIT and ours/PyTorch SR, allocations per run of each, and the
# geometric mean of ours/PyTorch SR.
#
#   tools/bench_models/compare.sh [--cnn | --broad[=NAME,...] | --quantized[=NAME,...]]
#                                 [--sr PATH] [--iters N]
#                                 [-- extra sr flags]
#   tools/bench_models/compare.sh --against=onnxruntime [--broad=NAME,...]
#                                 [--rounds N] [--threads N] [--turn N] [--sr PATH]
#                                 [--iters N]
#
# --against=onnxruntime: the broad corpus (or its models NAME,...) also
# exported to ONNX (export_onnx.py: the same modules, weights and inputs) and
# timed on ONNX Runtime's CPU provider (ort_bench.js, node with
# onnxruntime-node on NODE_PATH; a benchmark aid, see its header). ORT runs
# in a process of its own, so the two alternate: per model, --rounds rounds
# (default 3) of one `sr bench --against=pytorch-sr` process (ours, the JIT
# and PyTorch SR interleaved call by call) then one ORT process, A B A B;
# each side's time is the median of its rounds' medians. --threads N gives
# both N intra-op threads (default 1). Within sr bench the sides take turns
# of --turn calls (default 50, `sr bench --turn`): each runs on caches it
# warmed, as ORT does in its process (call by call, the JIT's and PyTorch
# SR's calls between ours cost a small CNN 20-40%). Prints model, ours, ORT, PyTorch SR,
# the JIT (us), ours/ORT and ORT's max |ort - eager|, the geometric mean of
# ours/ORT, and the models ORT could not be given (not exported) with why.
#
# The JIT's and PyTorch SR's products run on the best OpenBLAS core this CPU
# runs (sr bench's default; printed last); `-- --blas-core=NAME` or
# OPENBLAS_CORETYPE chooses another.
#
# PATH defaults to bazel-bin/tools/sr/sr (bazel build //tools:sr).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

sr=bazel-bin/tools/sr/sr
iters=500
cnn=false
broad=
quantized=
ort=false
rounds=3
threads=1
turn=50
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --sr) sr=$2; shift 2 ;;
    --iters) iters=$2; shift 2 ;;
    --cnn) cnn=true; shift ;;
    --broad) broad=all; shift ;;
    --broad=*) broad=${1#--broad=}; shift ;;
    --quantized) quantized=all; shift ;;
    --quantized=*) quantized=${1#--quantized=}; shift ;;
    --) shift; extra=("$@"); break ;;
    --against=onnxruntime) ort=true; shift ;;
    --against=*) echo "compare.sh: --against takes onnxruntime" >&2; exit 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --turn) turn=$2; shift 2 ;;
    -h|--help) sed -n '2,38p' "$0"; exit 0 ;;
    *) echo "compare.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -x "$sr" ] || { echo "compare.sh: no sr binary at $sr (bazel build //tools:sr)" >&2; exit 1; }

export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# sr bench takes the best OpenBLAS core for a comparison by default; the
# JIT-only runs below are told so, unless the caller chose a core.
core=(--blas-core=best)
if [ -n "${OPENBLAS_CORETYPE:-}" ] || [[ " ${extra[*]} " == *" --blas-core="* ]]; then
  core=()
fi

# A model PyTorch's Static Runtime cannot run (it says so) is timed against
# the JIT alone: its row shows "-" for PyTorch SR and stays out of the
# geometric mean.
run() {  # name, sr arguments...
  local name=$1; shift
  "$sr" bench "$@" --against=pytorch-sr --iters="$iters" --json="$dir/$name.json" \
    "${extra[@]}" >"$dir/$name.txt" 2>"$dir/$name.err" && return
  if grep -q "PyTorch's Static Runtime cannot run" "$dir/$name.err" &&
    "$sr" bench "$@" --iters="$iters" --json="$dir/$name.json" "${core[@]}" "${extra[@]}" \
      >"$dir/$name.txt" 2>>"$dir/$name.err"; then
    echo "$name: $(grep -m1 "PyTorch's Static Runtime cannot run" "$dir/$name.err")" >>"$dir/notes"
    return
  fi
  echo "compare.sh: $name failed:" >&2
  cat "$dir/$name.err" >&2
  exit 1
}
# --against=onnxruntime: ours (with the JIT and PyTorch SR) and ORT
# alternate, round by round.
if $ort; then
  command -v node >/dev/null || { echo "compare.sh: node is missing (ONNX Runtime runs in node)" >&2; exit 1; }
  node -e "require('onnxruntime-node')" 2>/dev/null || {
    echo "compare.sh: onnxruntime-node not on NODE_PATH (see tools/bench_models/ort_bench.js)" >&2
    exit 1
  }
  only=()
  [ -z "$broad" ] || [ "$broad" = all ] || only=(--only "$broad")
  /usr/bin/python3 tools/bench_models/save_broad_corpus.py "$dir/models" "${only[@]}" >"$dir/names"
  /usr/bin/python3 tools/bench_models/export_onnx.py "$dir/models" "${only[@]}" \
    >"$dir/exported" 2>"$dir/export.err" || { cat "$dir/export.err" >&2; exit 1; }
  grep "not exported" "$dir/export.err" >"$dir/notes" || true
  mapfile -t models <"$dir/names"
  for model in "${models[@]}"; do
    for round in $(seq "$rounds"); do
      run "$model.r$round" "$dir/models/$model.pt" --inputs="$dir/models/${model}_inputs.pt" \
        --intra-op-threads="$threads" --turn="$turn"
      if [ -f "$dir/models/$model.onnx" ]; then
        node tools/bench_models/ort_bench.js "$dir/models/$model.onnx" --iters="$iters" \
          --threads="$threads" >"$dir/$model.r$round.ort" 2>"$dir/$model.ort.err" || {
          echo "compare.sh: ONNX Runtime failed on $model:" >&2; cat "$dir/$model.ort.err" >&2; exit 1; }
      fi
    done
  done
  /usr/bin/python3 tools/bench_models/ort_table.py "$dir"
  exit 0
fi

if [ -n "$quantized" ]; then
  only=()
  [ "$quantized" = all ] || only=(--only "$quantized")
  /usr/bin/python3 tools/bench_models/save_quantized_corpus.py "$dir/models" "${only[@]}" \
    >"$dir/names"
  mapfile -t models <"$dir/names"
elif [ -n "$broad" ]; then
  only=()
  [ "$broad" = all ] || only=(--only "$broad")
  /usr/bin/python3 tools/bench_models/save_broad_corpus.py "$dir/models" "${only[@]}" >"$dir/names"
  mapfile -t models <"$dir/names"
elif $cnn; then
  /usr/bin/python3 tools/bench_models/save_cnns.py "$dir/models" >/dev/null
  models=(resnet18 squeezenet1_1 shufflenet_v2_x0_5 mobilenet_v3_small resnet50 densenet121 vgg11_bn)
else
  /usr/bin/python3 tools/bench_models/save_models.py "$dir/models" >/dev/null
  models=(ads inplace multi_output lstm dlrm control_flow forked_ads2 forked_ads3 dict_ads containers
          transformer)
fi
for model in "${models[@]}"; do
  engine=()
  if [ -f "$dir/models/$model.engine" ]; then
    engine=(--quantized-engine="$(cat "$dir/models/$model.engine")")
  fi
  run "$model" "$dir/models/$model.pt" --inputs="$dir/models/${model}_inputs.pt" "${engine[@]}"
done
if ! $cnn && [ -z "$broad" ] && [ -z "$quantized" ]; then
  run builtin_ads --builtin=ads
  run builtin_op_dense --builtin=op_dense
fi

/usr/bin/python3 - "$dir" <<'PY'
import json, math, sys, glob, os
rows, cores = [], set()
print(f"{'model':<18}{'ours us':>9}{'jit us':>9}{'psr us':>9}{'ours/jit':>10}{'ours/psr':>10}"
      f"{'allocs ours/jit/psr':>22}{'nodes o/n/f':>14}")
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    r = json.load(open(path))
    name = os.path.basename(path)[:-5]
    s, j, p = r["static_runtime"], r["jit"], r.get("pytorch_sr")
    n = r["nodes"]
    if p:
        rows.append(r["ratio_to_pytorch_sr"])
    cores.add((r["openblas_core"], r["best_openblas_core"], r["onednn_isa"]))
    psr_allocs = f"{p['allocations_per_run']:.0f}" if p else "-"
    allocs = f"{s['allocations_per_run']:.0f}/{j['allocations_per_run']:.0f}/{psr_allocs}"
    psr_us = f"{p['median_us']:.1f}" if p else "-"
    psr_ratio = f"{r['ratio_to_pytorch_sr']:.3f}" if p else "-"
    print(f"{name:<18}{s['median_us']:>9.1f}{j['median_us']:>9.1f}{psr_us:>9}"
          f"{r['ratio']:>10.3f}{psr_ratio:>10}{allocs:>22}"
          f"{n['out_variant']:>6}/{n['native']}/{n['fallback']}")
if rows:
    print(f"geomean ours/pytorch sr: {math.exp(sum(map(math.log, rows)) / len(rows)):.3f}")
for core, best, isa in sorted(cores):
    print(f"OpenBLAS core {core} (this CPU runs up to {best}), oneDNN {isa}")
notes = os.path.join(sys.argv[1], "notes")
if os.path.exists(notes):
    print(open(notes).read(), end="")
PY
