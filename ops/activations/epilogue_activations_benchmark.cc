// SiluInPlace and GeluInPlace against ATen's in-place silu_ and gelu_ on
// one thread, on a buffer that fits in the caches (32K floats) and one that
// does not (1M floats). Each iteration first restores the buffer (applied
// again and again, values would sink into subnormals); BM_Restore times
// that alone.
//   bazel run -c opt //ops/activations:epilogue_activations_benchmark
#include <cstdint>

#include "ATen/ATen.h"
#include "benchmark/benchmark.h"
#include "ops/activations/epilogue_activations.h"

namespace static_runtime {
namespace {

void BM_Restore(benchmark::State& state) {
  const at::Tensor source = at::randn({state.range(0)}) * 4;
  at::Tensor x = source.clone();
  for (auto _ : state) {
    x.copy_(source);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * x.numel());
}

void BM_SiluOurs(benchmark::State& state) {
  const at::Tensor source = at::randn({state.range(0)}) * 4;
  at::Tensor x = source.clone();
  for (auto _ : state) {
    x.copy_(source);
    ops::SiluInPlace(x.data_ptr<float>(), x.numel());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * x.numel());
}

void BM_SiluAten(benchmark::State& state) {
  const at::Tensor source = at::randn({state.range(0)}) * 4;
  at::Tensor x = source.clone();
  for (auto _ : state) {
    x.copy_(source);
    at::silu_(x);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * x.numel());
}

void BM_GeluOurs(benchmark::State& state) {
  const at::Tensor source = at::randn({state.range(0)}) * 4;
  at::Tensor x = source.clone();
  for (auto _ : state) {
    x.copy_(source);
    ops::GeluInPlace(x.data_ptr<float>(), x.numel());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * x.numel());
}

void BM_GeluAten(benchmark::State& state) {
  const at::Tensor source = at::randn({state.range(0)}) * 4;
  at::Tensor x = source.clone();
  for (auto _ : state) {
    x.copy_(source);
    at::gelu_(x);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * x.numel());
}

BENCHMARK(BM_Restore)->Arg(1 << 15)->Arg(1 << 20);
BENCHMARK(BM_SiluOurs)->Arg(1 << 15)->Arg(1 << 20);
BENCHMARK(BM_SiluAten)->Arg(1 << 15)->Arg(1 << 20);
BENCHMARK(BM_GeluOurs)->Arg(1 << 15)->Arg(1 << 20);
BENCHMARK(BM_GeluAten)->Arg(1 << 15)->Arg(1 << 20);

}  // namespace
}  // namespace static_runtime
