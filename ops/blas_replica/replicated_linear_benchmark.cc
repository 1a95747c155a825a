// ReplicatedLinear (the recurrent step's h W^T + b in BLAS's order) against
// ATen's addmm on one thread, at the shapes of LSTM and GRU steps: `rows`
// (the batch) by k = hidden inputs into n = 4 (or 3) x hidden gates.
//   bazel run -c opt //ops/blas_replica:replicated_linear_benchmark
// Which order the product runs in (Chain, LaneTree or ATen's call) depends
// on the OpenBLAS core (OPENBLAS_CORETYPE), as replicated_linear.h says.
#include <cstdint>

#include "ATen/ATen.h"
#include "benchmark/benchmark.h"
#include "ops/blas_replica/replicated_linear.h"
#include "tools/linear_benchmark_shape.h"

namespace static_runtime {
namespace {

void BM_Replicated(benchmark::State& state) {
  LinearBenchmarkShape shape = MakeLinearBenchmarkShape(state);
  const ops::ReplicatedLinear linear(shape.weight, shape.bias);
  for (auto _ : state) {
    linear.Run(shape.x, shape.y);
    benchmark::ClobberMemory();
  }
  SetLinearBenchmarkFlops(state);
}

void BM_AtenAddmm(benchmark::State& state) {
  LinearBenchmarkShape shape = MakeLinearBenchmarkShape(state);
  const at::Tensor weight_t = shape.weight.t();
  for (auto _ : state) {
    at::addmm_out(shape.y, shape.bias, shape.x, weight_t);
    benchmark::ClobberMemory();
  }
  SetLinearBenchmarkFlops(state);
}

void StepShapes(benchmark::internal::Benchmark* benchmark) {
  for (const int64_t rows : {1, 2, 3, 4, 8, 16}) benchmark->Args({rows, 512, 128});
  benchmark->Args({4, 384, 128})->Args({4, 1024, 256});
  // Hidden 64 (the LaneTree order for up to 4 rows on AVX-512 cores).
  for (const int64_t rows : {1, 2, 3, 4}) benchmark->Args({rows, 256, 64});
}

BENCHMARK(BM_Replicated)->Apply(StepShapes);
BENCHMARK(BM_AtenAddmm)->Apply(StepShapes);

}  // namespace
}  // namespace static_runtime
