// The products linear_fused chooses between for small products and few
// rows, on one thread: StreamedLinear (the weight in panels of 16 outputs;
// AVX-512 loops where the CPU has them, and its AVX2 loops) and oneDNN's
// matmul on the weight packed once, at `rows` x k into n (the measurements
// behind kStreamedMaxMultiplyAdds in onednn_linear.cc).
//   bazel run -c opt //ops/linalg:few_rows_linear_benchmark
// The weights stay in the caches here; inside a model other layers' weights
// may evict them between calls.
#include <cstdint>
#include <vector>

#include "ATen/ATen.h"
#include "benchmark/benchmark.h"
#include "ops/linalg/onednn_matmul.h"
#include "ops/linalg/streamed_linear.h"
#include "tools/linear_benchmark_shape.h"

namespace static_runtime {
namespace {

void Streamed(benchmark::State& state, ops::StreamedLinear::Loops loops) {
  LinearBenchmarkShape s = MakeLinearBenchmarkShape(state);
  const ops::StreamedLinear linear(s.weight.data_ptr<float>(), s.bias.data_ptr<float>(),
                                   s.weight.size(0), s.weight.size(1), loops);
  for (auto _ : state) {
    linear.Run(s.x.data_ptr<float>(), s.x.size(0), s.y.data_ptr<float>());
    benchmark::ClobberMemory();
  }
  SetLinearBenchmarkFlops(state);
}

void BM_Streamed(benchmark::State& state) { Streamed(state, ops::StreamedLinear::Loops::kWidest); }
void BM_StreamedAvx2(benchmark::State& state) {
  Streamed(state, ops::StreamedLinear::Loops::kAvx2);
}

void BM_OneDnn(benchmark::State& state) {
  LinearBenchmarkShape s = MakeLinearBenchmarkShape(state);
  onednn::PackedLinear linear(s.weight, s.bias);
  for (auto _ : state) {
    linear.Run(s.x.data_ptr<float>(), s.x.size(0), s.y.data_ptr<float>());
    benchmark::ClobberMemory();
  }
  SetLinearBenchmarkFlops(state);
}

void Shapes(benchmark::internal::Benchmark* benchmark) {
  for (const int64_t rows : {1, 2, 4, 8, 16, 32, 64}) {
    benchmark->Args({rows, 300, 128})->Args({rows, 32, 64})->Args({rows, 48, 24});
    benchmark->Args({rows, 256, 256})->Args({rows, 128, 512});
  }
}

BENCHMARK(BM_Streamed)->Apply(Shapes);
BENCHMARK(BM_StreamedAvx2)->Apply(Shapes);
BENCHMARK(BM_OneDnn)->Apply(Shapes);

}  // namespace
}  // namespace static_runtime
