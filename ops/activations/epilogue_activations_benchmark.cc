// SiluInPlace and GeluInPlace against ATen's in-place silu_ and gelu_ on
// one thread, on a buffer that fits in the caches (32K floats) and one that
// does not (1M floats). Each iteration first restores the buffer (applied
// again and again, values would sink into subnormals); "restore" times
// that alone.
//   bazel run -c opt //ops/activations:epilogue_activations_benchmark
#include <cstdint>

#include "ATen/ATen.h"
#include "benchmark/benchmark.h"
#include "ops/activations/epilogue_activations.h"

namespace static_runtime {
namespace {

void BM_InPlace(benchmark::State& state, void (*activate)(at::Tensor&)) {
  const at::Tensor source = at::randn({state.range(0)}) * 4;
  at::Tensor x = source.clone();
  for (auto _ : state) {
    x.copy_(source);
    activate(x);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * x.numel());
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

}  // namespace
}  // namespace static_runtime
