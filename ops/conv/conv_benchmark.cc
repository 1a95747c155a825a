// GFLOP/s of the oneDNN convolution kernel (static_runtime::conv2d_fused)
// against ATen's aten::conv2d on the main convolutions of resnet18, a
// depthwise one of mobilenet_v3_small, ConvNeXt's 7x7 depthwise one on the
// 2x2 map of its last stage (64x64 images) and one of DeepLabv3's atrous
// 3x3 convolutions (rate 12) on a 6x6 map, whose outer taps read only
// padding; one thread; and the machine's single-core float32 peak, measured
// with a loop of independent FMAs (AVX-512 where the CPU has it, else AVX2:
// 16 or 8 lanes x 2 flops per FMA; 12 accumulators hide the FMA latency).
//
//   bazel run //ops/conv:conv_benchmark
//
// Counter: gflops (2 * N * K * OH * OW * C/groups * kh * kw per call, every
// tap counted, as the direct algorithm computes them).
#include <immintrin.h>

#include <chrono>
#include <vector>

#include "ATen/ATen.h"
#include "benchmark/benchmark.h"
#include "ir/operators/operators.h"
#include "ops/core/cpu_isa.h"
#include "ops/core/registry.h"
#include "ops/kernels.h"
#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {
namespace {

// A convolution padded to keep the image's size at stride 1.
struct Shape {
  int64_t channels, size, filters, kernel, stride, groups, dilation = 1;
  int64_t padding() const { return dilation * (kernel / 2); }
};
const std::vector<Shape>& Shapes() {
  static const auto* const kShapes = new std::vector<Shape>{
      {3, 224, 64, 7, 2, 1},       // resnet18 stem
      {64, 56, 64, 3, 1, 1},       // layer1
      {128, 28, 128, 3, 1, 1},     // layer2
      {256, 14, 256, 3, 1, 1},     // layer3
      {512, 7, 512, 3, 1, 1},      // layer4
      {96, 28, 96, 5, 2, 96},      // mobilenet_v3_small depthwise
      {768, 2, 768, 7, 1, 768},    // convnext_tiny's last stage, 64x64 images
      {960, 6, 256, 3, 1, 1, 12},  // deeplabv3_mobilenet_v3_large's atrous pyramid
  };
  return *kShapes;
}

// The FMA throughput of one core: kChains independent chains of FMAs on
// vectors of `Vec`, enough to cover the FMA latency; the loops over them are
// fully unrolled, so the accumulators live in registers. Different starting
// values: no two chains compute the same.
constexpr int kChains = 12;
constexpr int64_t kIterations = 50'000'000;

template <typename Seconds>
double Gflops(Seconds seconds, int lanes) {
  return kIterations * kChains * lanes * 2 / seconds / 1e9;
}

__attribute__((target("avx512f"))) double PeakGflopsAvx512() {
  __m512 accumulators[kChains];
  for (int i = 0; i < kChains; ++i) accumulators[i] = _mm512_set1_ps(static_cast<float>(i));
  const __m512 x = _mm512_set1_ps(0.999f), y = _mm512_set1_ps(0.001f);
  const auto start = std::chrono::steady_clock::now();
  for (int64_t n = 0; n < kIterations; ++n) {
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i) accumulators[i] = _mm512_fmadd_ps(accumulators[i], x, y);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  __m512 sum = accumulators[0];
  for (int i = 1; i < kChains; ++i) sum = _mm512_add_ps(sum, accumulators[i]);
  benchmark::DoNotOptimize(sum);
  return Gflops(seconds, 16);
}

__attribute__((target("avx2,fma"))) double PeakGflopsAvx2() {
  __m256 accumulators[kChains];
  for (int i = 0; i < kChains; ++i) accumulators[i] = _mm256_set1_ps(static_cast<float>(i));
  const __m256 x = _mm256_set1_ps(0.999f), y = _mm256_set1_ps(0.001f);
  const auto start = std::chrono::steady_clock::now();
  for (int64_t n = 0; n < kIterations; ++n) {
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i) accumulators[i] = _mm256_fmadd_ps(accumulators[i], x, y);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  __m256 sum = accumulators[0];
  for (int i = 1; i < kChains; ++i) sum = _mm256_add_ps(sum, accumulators[i]);
  benchmark::DoNotOptimize(sum);
  return Gflops(seconds, 8);
}

// 0 on CPUs with neither.
double MeasuredPeakGflops() {
  if (ops::CpuRunsAvx512()) return PeakGflopsAvx512();
  if (ops::CpuRunsAvx2()) return PeakGflopsAvx2();
  return 0;
}

double Flops(const Shape& s) {
  const int64_t out = (s.size + 2 * s.padding() - s.dilation * (s.kernel - 1) - 1) / s.stride + 1;
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
  for (auto _ : state) {
    benchmark::DoNotOptimize(at::conv2d(x, w, b, {s.stride, s.stride}, {s.padding(), s.padding()},
                                        {s.dilation, s.dilation}, s.groups));
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
  const std::vector<c10::IValue> constants = {
      at::randn({s.filters, s.channels / s.groups, s.kernel, s.kernel}),
      at::randn({s.filters}),
      std::vector<int64_t>{s.stride, s.stride},
      std::vector<int64_t>{s.padding(), s.padding()},
      std::vector<int64_t>{s.dilation, s.dilation},
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
  const Kernel kernel = GlobalKernels().Find(node, true)->kernel;

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

BENCHMARK(BM_AtenConv2d)->DenseRange(0, 7)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_OneDnnConv2d)->DenseRange(0, 7)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace static_runtime
