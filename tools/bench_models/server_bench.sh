#!/usr/bin/env bash
# The model server's benchmarks (docs/serving.md, "Benchmarks"), one run
# each, on the ads model of save_models.py and torchvision's resnet18:
#   1. overhead per request: `sr loadgen` (one client, gRPC on loopback)
#      against an in-process call (`sr throughput`, one caller), and the
#      transport's own round trip (ServerLive calls);
#   2. throughput of 2 runtimes with 4 clients (two in flight while two are
#      computed) against the in-process pool with 2 callers, in interleaved
#      rounds (this VM's speed drifts by 20% from one run to the next);
#   3. resnet18 at a rate above its unbatched capacity, with and without
#      dynamic batching (throughput and p99);
#   4. the same loads on `sr serve --engine=jit`.
# One intra-op thread everywhere; loadgen shares the machine's cores with
# the server, as a client on the same host does.
#
#   tools/bench_models/server_bench.sh [--sr PATH] [--seconds S] [--rounds N]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

sr=bazel-bin/tools/sr/sr
seconds=5
rounds=5
while [ $# -gt 0 ]; do
  case "$1" in
    --sr) sr=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "server_bench.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -x "$sr" ] || { echo "server_bench.sh: no sr binary at $sr (bazel build //tools:sr)" >&2; exit 1; }

export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
dir=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$dir"
}
trap cleanup EXIT
/usr/bin/python3 tools/bench_models/save_models.py "$dir/saved" >/dev/null 2>&1
/usr/bin/python3 - "$dir/saved" <<'PY'
import os, sys, torch, torchvision
torch.manual_seed(0)
model = torch.jit.script(torchvision.models.resnet18().eval())
torch.jit.save(model, os.path.join(sys.argv[1], "resnet18.pt"))
torch.save((torch.randn(1, 3, 224, 224),), os.path.join(sys.argv[1], "resnet18_inputs.pt"))
PY
repo="$dir/models"
mkdir -p "$repo"/{ads,resnet18,resnet18_batched}
cp "$dir/saved/ads.pt" "$repo/ads/model.pt"
cp "$dir/saved/resnet18.pt" "$repo/resnet18/model.pt"
cp "$dir/saved/resnet18.pt" "$repo/resnet18_batched/model.pt"
echo '{"instances": 2}' >"$repo/ads/config.json"
echo '{"instances": 2}' >"$repo/resnet18/config.json"
echo '{"instances": 2, "max_batch_size": 4, "max_queue_delay_us": 20000}' \
  >"$repo/resnet18_batched/config.json"

start_server() {  # engine -> prints the gRPC port
  "$sr" serve --repository="$repo" --grpc=0 --engine="$1" --cache-dir=none \
    >"$dir/serve_$1.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 600); do
    grep -q '^ready:' "$dir/serve_$1.log" 2>/dev/null && break
    sleep 0.2
  done
  sed -n 's/^grpc: listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$dir/serve_$1.log"
}
static_port=$(start_server static)
jit_port=$(start_server jit)

inputs() { echo "$dir/saved/${1}_inputs.pt"; }
# "p50 p99 answered/s" of one loadgen run.
load() {  # port model [flags]
  local port=$1 model=$2
  shift 2
  "$sr" loadgen "$repo/$model/model.pt" --inputs="$(inputs "${model%_batched}")" \
    --grpc="127.0.0.1:$port" --seconds="$seconds" "$@" |
    awk '/answered/ {for (i = 1; i <= NF; i++) if ($i ~ /^\(/) {r = $i; gsub(/[(\/s)]/, "", r)}}
         /^latency/ {print $4, $8, r}'
}
# "p50 calls/s" of one in-process run.
in_process() {  # model threads
  "$sr" throughput "$dir/saved/$1.pt" --inputs="$(inputs "$1")" --threads="$2" \
    --seconds="$seconds" |
    awk '/^calls\/s/ {c = $2} /^latency/ {sub(",", "", $4); l = $4} END {print l, c}'
}

echo "== 1. overhead per request, ads, one client (us)"
read -r jit_p50 _ _ <<<"$(load "$jit_port" ads)"
read -r live_p50 _ _ <<<"$(load "$static_port" ads --server-live-only)"
read -r inproc_p50 _ <<<"$(in_process ads 1)"
read -r grpc_p50 grpc_p99 _ <<<"$(load "$static_port" ads)"
printf '%-34s %10s\n' "in-process call p50" "$inproc_p50" "gRPC ModelInfer p50 (p99 $grpc_p99)" \
  "$grpc_p50" "gRPC ServerLive p50 (transport)" "$live_p50"
awk -v a="$grpc_p50" -v b="$inproc_p50" 'BEGIN {printf "%-34s %10.1f\n", "server overhead p50", a - b}'
printf '%-34s %10s\n' "gRPC ModelInfer p50, --engine=jit" "$jit_p50"

echo "== 2. throughput, 2 runtimes: 4 clients / 2 in-process callers (requests/s)"
echo "   (medians of $rounds interleaved rounds; serve/in: the median of the rounds' ratios)"
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
printf '%-10s %12s %12s %12s %8s\n' model in-process "sr serve" "jit serve" "serve/in"
for model in ads resnet18; do
  : >"$dir/in"; : >"$dir/served"; : >"$dir/jit"; : >"$dir/ratio"
  for ((r = 0; r < rounds; r++)); do
    read -r _ inproc <<<"$(in_process "$model" 2)"
    read -r _ _ served <<<"$(load "$static_port" "$model" --threads=4)"
    read -r _ _ jit <<<"$(load "$jit_port" "$model" --threads=4)"
    echo "$inproc" >>"$dir/in"; echo "$served" >>"$dir/served"; echo "$jit" >>"$dir/jit"
    awk -v a="$inproc" -v b="$served" 'BEGIN {print b / a}' >>"$dir/ratio"
  done
  printf '%-10s %12.1f %12.1f %12.1f %8.3f\n' "$model" "$(median <"$dir/in")" \
    "$(median <"$dir/served")" "$(median <"$dir/jit")" "$(median <"$dir/ratio")"
done

echo "== 3. resnet18 open loop at 1.5x its unbatched capacity"
read -r _ _ capacity <<<"$(load "$static_port" resnet18 --threads=4)"
rate=$(awk -v c="$capacity" 'BEGIN {printf "%.1f", 1.5 * c}')
printf '%-22s %10s %10s %10s\n' "rate $rate/s" answered/s "p50 us" "p99 us"
for model in resnet18 resnet18_batched; do
  read -r p50 p99 answered <<<"$(load "$static_port" "$model" --rate="$rate")"
  printf '%-22s %10s %10s %10s\n' "$model" "$answered" "$p50" "$p99"
done
