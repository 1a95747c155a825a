// GFLOP/s of the oneDNN convolution kernel (static_runtime::conv2d_fused)
// against ATen's aten::conv2d on the main convolutions of resnet18 and a
// depthwise one of mobilenet_v3_small, one thread, and the machine's
// single-core float32 peak, measured with a loop of independent AVX-512 FMAs
// (16 lanes x 2 flops per FMA; 12 accumulators hide the FMA latency).
//
//   bazel run //ops:conv_benchmark
//
// Counters: gflops (2 * N * K * OH * OW * C/groups * kh * kw per call),
// and for the kernel, fraction_of_peak.
#include <immintrin.h>

#include <chrono>
#include <vector>

#include "ATen/ATen.h"
#include "benchmark/benchmark.h"
#include "ir/operators/operators.h"
#include "ops/registry.h"
#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {
namespace {

struct Shape {
  int64_t channels, size, filters, kernel, stride, groups;
};
const std::vector<Shape>& Shapes() {
  static const auto* const kShapes = new std::vector<Shape>{
      {3, 224, 64, 7, 2, 1},    // resnet18 stem
      {64, 56, 64, 3, 1, 1},    // layer1
      {128, 28, 128, 3, 1, 1},  // layer2
      {256, 14, 256, 3, 1, 1},  // layer3
      {512, 7, 512, 3, 1, 1},   // layer4
      {96, 28, 96, 5, 2, 96},   // mobilenet_v3_small depthwise
  };
  return *kShapes;
}

__attribute__((target("avx512f"))) double MeasuredPeakGflops() {
  // Twelve independent FMA chains, enough to cover the FMA latency; the
  // loops over them are fully unrolled, so the accumulators live in
  // registers. Different starting values: no two chains compute the same.
  constexpr int kChains = 12;
  __m512 accumulators[kChains];
  for (int i = 0; i < kChains; ++i) accumulators[i] = _mm512_set1_ps(static_cast<float>(i));
  const __m512 x = _mm512_set1_ps(0.999f), y = _mm512_set1_ps(0.001f);
  constexpr int64_t kIterations = 50'000'000;
  const auto start = std::chrono::steady_clock::now();
  for (int64_t n = 0; n < kIterations; ++n) {
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i) accumulators[i] = _mm512_fmadd_ps(accumulators[i], x, y);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  __m512 sum = accumulators[0];
  for (int i = 1; i < kChains; ++i) sum = _mm512_add_ps(sum, accumulators[i]);
  float lanes[16];
  _mm512_storeu_ps(lanes, sum);
  benchmark::DoNotOptimize(lanes[0]);
  return kIterations * kChains * 16 * 2 / seconds / 1e9;
}

double Flops(const Shape& s) {
  const int64_t out = (s.size + 2 * (s.kernel / 2) - s.kernel) / s.stride + 1;
  return 2.0 * s.filters * out * out * (s.channels / s.groups) * s.kernel * s.kernel;
}

void BM_Peak(benchmark::State& state) {
  double gflops = 0;
  for (auto _ : state) gflops = MeasuredPeakGflops();
  state.counters["peak_gflops"] = gflops;
}
BENCHMARK(BM_Peak)->Iterations(1)->Unit(benchmark::kMillisecond);

void BM_AtenConv2d(benchmark::State& state) {
  const Shape& s = Shapes()[state.range(0)];
  const at::Tensor x = at::randn({1, s.channels, s.size, s.size});
  const at::Tensor w = at::randn({s.filters, s.channels / s.groups, s.kernel, s.kernel});
  const at::Tensor b = at::randn({s.filters});
  const int64_t pad = s.kernel / 2;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        at::conv2d(x, w, b, {s.stride, s.stride}, {pad, pad}, {1, 1}, s.groups));
  }
  state.counters["gflops"] =
      benchmark::Counter(Flops(s) * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}

// The kernel on a node whose result feeds another convolution (so it stays
// channels-last, as inside a CNN), its input channels-last as the previous
// kernel leaves it.
void BM_OneDnnConv2d(benchmark::State& state) {
  const Shape& s = Shapes()[state.range(0)];
  ops::EnsureOperatorsRegistered();
  auto graph = std::make_shared<torch::jit::Graph>();
  torch::jit::Value* input = graph->addInput("x")->setType(c10::TensorType::get());
  const int64_t pad = s.kernel / 2;
  const std::vector<c10::IValue> constants = {
      at::randn({s.filters, s.channels / s.groups, s.kernel, s.kernel}),
      at::randn({s.filters}),
      std::vector<int64_t>{s.stride, s.stride},
      std::vector<int64_t>{pad, pad},
      std::vector<int64_t>{1, 1},
      s.groups,
      c10::IValue(),
      std::string("relu"),
      0.0,
      0.0};
  std::vector<torch::jit::Value*> inputs = {input};
  for (const c10::IValue& constant : constants) inputs.push_back(graph->insertConstant(constant));
  torch::jit::Node* node = graph->insertNode(graph->create(ops::kConv2dFused, inputs, 1));
  node->output()->setType(c10::TensorType::get());
  graph->registerOutput(graph->insert(c10::aten::flatten, {node->output(), int64_t{0}}));
  const Kernel kernel = KernelRegistry::Global().Find(node, true)->kernel;

  std::vector<c10::IValue> values = {
      at::randn({1, s.channels, s.size, s.size}).contiguous(at::MemoryFormat::ChannelsLast)};
  values.insert(values.end(), constants.begin(), constants.end());
  values.emplace_back();  // the output slot
  std::vector<ValueIndex> input_slots(values.size() - 1);
  for (size_t i = 0; i < input_slots.size(); ++i) input_slots[i] = i;
  const std::vector<ValueIndex> output_slots = {static_cast<ValueIndex>(values.size() - 1)};
  NodeIO io(values.data(), input_slots, output_slots);
  for (auto _ : state) kernel(io);
  const double gflops = Flops(s) * state.iterations() / 1e9;
  state.counters["gflops"] = benchmark::Counter(gflops, benchmark::Counter::kIsRate);
}

BENCHMARK(BM_AtenConv2d)->DenseRange(0, 5)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_OneDnnConv2d)->DenseRange(0, 5)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace static_runtime
