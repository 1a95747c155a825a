// SiluInPlace and GeluInPlace against ATen's in-place silu_ and gelu_ on
// one thread, on a buffer that fits in the caches (32K floats) and one that
// does not (1M floats). Each iteration first restores the buffer (applied
// again and again, values would sink into subnormals); "restore" times
// that alone. BM_Loops times each ISA's loops this CPU runs.
//   bazel run -c opt //ops/activations:epilogue_activations_benchmark
#include <cstdint>
#include <string>

#include "ATen/ATen.h"
#include "benchmark/benchmark.h"
#include "ops/activations/epilogue_activations.h"

namespace static_runtime {
namespace {

// Times `activate` on a restored buffer of state.range(0) floats.
template <typename Activate>
void TimeInPlace(benchmark::State& state, const Activate& activate) {
  const at::Tensor source = at::randn({state.range(0)}) * 4;
  at::Tensor x = source.clone();
  for (auto _ : state) {
    x.copy_(source);
    activate(x);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * x.numel());
}

void BM_InPlace(benchmark::State& state, void (*activate)(at::Tensor&)) {
  TimeInPlace(state, activate);
}

void Restore(at::Tensor&) {}
void SiluOurs(at::Tensor& x) { ops::SiluInPlace(x.data_ptr<float>(), x.numel()); }
void SiluAten(at::Tensor& x) { at::silu_(x); }
void GeluOurs(at::Tensor& x) { ops::GeluInPlace(x.data_ptr<float>(), x.numel()); }
void GeluAten(at::Tensor& x) { at::gelu_(x); }

BENCHMARK_CAPTURE(BM_InPlace, restore, Restore)->Arg(1 << 15)->Arg(1 << 20);
BENCHMARK_CAPTURE(BM_InPlace, silu_ours, SiluOurs)->Arg(1 << 15)->Arg(1 << 20);
BENCHMARK_CAPTURE(BM_InPlace, silu_aten, SiluAten)->Arg(1 << 15)->Arg(1 << 20);
BENCHMARK_CAPTURE(BM_InPlace, gelu_ours, GeluOurs)->Arg(1 << 15)->Arg(1 << 20);
BENCHMARK_CAPTURE(BM_InPlace, gelu_aten, GeluAten)->Arg(1 << 15)->Arg(1 << 20);

// Each ISA's loops this CPU runs, by name (SiluInPlace and GeluInPlace use
// the first).
void BM_Loops(benchmark::State& state, const char* isa, bool gelu) {
  for (const ops::EpilogueActivationLoops& loops : ops::EpilogueActivationCandidates()) {
    if (std::string(loops.name) != isa) continue;
    const auto loop = gelu ? loops.gelu : loops.silu;
    TimeInPlace(state, [loop](at::Tensor& x) { loop(x.data_ptr<float>(), x.numel()); });
    return;
  }
  state.SkipWithError("this CPU does not run these loops");
}
BENCHMARK_CAPTURE(BM_Loops, silu_avx2, "avx2", false)->Arg(1 << 15);
BENCHMARK_CAPTURE(BM_Loops, silu_avx512, "avx512", false)->Arg(1 << 15);
BENCHMARK_CAPTURE(BM_Loops, gelu_avx2, "avx2", true)->Arg(1 << 15);
BENCHMARK_CAPTURE(BM_Loops, gelu_avx512, "avx512", true)->Arg(1 << 15);

}  // namespace
}  // namespace static_runtime
