// The operands of a benchmarked product y = x W^T + b, from the benchmark's
// arguments (rows, n, k): random W [n, k], b [n], x [rows, k] and y [rows, n];
// and its rate in GFLOP/s as a counter. For the linear-product benchmarks of
// ops/ (//ops/linalg:few_rows_linear_benchmark,
// //ops/blas_replica:replicated_linear_benchmark).
#ifndef STATIC_RUNTIME_TOOLS_LINEAR_BENCHMARK_SHAPE_H_
#define STATIC_RUNTIME_TOOLS_LINEAR_BENCHMARK_SHAPE_H_

#include <cstdint>

#include "ATen/ATen.h"
#include "benchmark/benchmark.h"

namespace static_runtime {

struct LinearBenchmarkShape {
  at::Tensor weight, bias, x, y;
};

inline LinearBenchmarkShape MakeLinearBenchmarkShape(const benchmark::State& state) {
  const int64_t rows = state.range(0), n = state.range(1), k = state.range(2);
  return {at::randn({n, k}), at::randn({n}), at::randn({rows, k}), at::empty({rows, n})};
}

inline void SetLinearBenchmarkFlops(benchmark::State& state) {
  state.counters["GFLOPs"] =
      benchmark::Counter(2e-9 * state.range(0) * state.range(1) * state.range(2),
                         benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_TOOLS_LINEAR_BENCHMARK_SHAPE_H_
