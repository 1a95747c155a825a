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

namespace static_runtime {
namespace {

struct Shape {
  at::Tensor weight, bias, x, y;
};

Shape MakeShape(const benchmark::State& state) {
  const int64_t rows = state.range(0), n = state.range(1), k = state.range(2);
  return {at::randn({n, k}), at::randn({n}), at::randn({rows, k}), at::empty({rows, n})};
}

void SetFlops(benchmark::State& state) {
  state.counters["GFLOPs"] =
      benchmark::Counter(2e-9 * state.range(0) * state.range(1) * state.range(2),
                         benchmark::Counter::kIsIterationInvariantRate);
}

void Streamed(benchmark::State& state, ops::StreamedLinear::Loops loops) {
  Shape s = MakeShape(state);
  const ops::StreamedLinear linear(s.weight.data_ptr<float>(), s.bias.data_ptr<float>(),
                                   s.weight.size(0), s.weight.size(1), loops);
  std::vector<const float*> rows;
  for (int64_t r = 0; r < s.x.size(0); ++r) rows.push_back(s.x[r].data_ptr<float>());
  for (auto _ : state) {
    linear.Run(rows.data(), s.x.size(0), s.y.data_ptr<float>(), s.y.size(1));
    benchmark::ClobberMemory();
  }
  SetFlops(state);
}

void BM_Streamed(benchmark::State& state) { Streamed(state, ops::StreamedLinear::Loops::kWidest); }
void BM_StreamedAvx2(benchmark::State& state) {
  Streamed(state, ops::StreamedLinear::Loops::kAvx2);
}

void BM_OneDnn(benchmark::State& state) {
  Shape s = MakeShape(state);
  onednn::PackedLinear linear(s.weight, s.bias);
  for (auto _ : state) {
    linear.Run(s.x.data_ptr<float>(), s.x.size(0), s.y.data_ptr<float>());
    benchmark::ClobberMemory();
  }
  SetFlops(state);
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
