// ops::Winograd3x3 against oneDNN's direct convolution (what conv2d_fused
// runs otherwise on CPUs without AVX-512) and oneDNN's Winograd one (on
// AVX-512, its blocked layouts, reorders left out) on channels-last 3 x 3 stride-1
// convolutions padded to keep the size, batch 1, one thread: the shapes
// that decide where conv2d_fused takes Winograd (ops/conv/conv2d.cc).
//
//   bazel run -c opt //ops/conv:winograd_benchmark
//
// Arguments: channels (in = out), image size (and for Winograd the tile,
// 2 or 4). Counter: gflops of the direct algorithm (2 * K * C * 9 per
// output), so Winograd's may pass the peak.
#include <unordered_map>
#include <vector>

#include "ATen/ATen.h"
#include "benchmark/benchmark.h"
#include "dnnl.hpp"
#include "ops/conv/winograd_3x3.h"

namespace static_runtime {
namespace {

double Flops(int64_t channels, int64_t size) { return 2.0 * channels * channels * 9 * size * size; }

void BM_Winograd3x3(benchmark::State& state) {
  if (!ops::Winograd3x3::Available()) {
    state.SkipWithError("no AVX2 and FMA");
    return;
  }
  const int64_t c = state.range(0), size = state.range(1);
  const at::Tensor w = at::randn({c, c, 3, 3}), b = at::randn({c});
  const at::Tensor x = at::randn({1, size, size, c}), y = at::empty({1, size, size, c});
  const ops::Winograd3x3 kernel(w.data_ptr<float>(), b.data_ptr<float>(), c, c,
                                static_cast<int>(state.range(2)));
  const ops::Winograd3x3Shape shape = {1, size, size, 1, 1, size, size};
  for (auto _ : state) kernel.Run(shape, x.data_ptr<float>(), y.data_ptr<float>());
  state.counters["gflops"] =
      benchmark::Counter(Flops(c, size) * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}

// oneDNN's convolution by `algorithm` between activations in `layout`
// (`any`: the blocked layout it picks; the time leaves out reorders).
void OneDnn(benchmark::State& state, dnnl::algorithm algorithm, dnnl::memory::format_tag layout) {
  using dnnl::memory;
  const int64_t c = state.range(0), size = state.range(1);
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  const auto f32 = memory::data_type::f32;
  const memory::desc io({1, c, size, size}, f32, layout);
  const memory::desc any_weights({c, c, 3, 3}, f32, memory::format_tag::any);
  const memory::desc plain_weights({c, c, 3, 3}, f32, memory::format_tag::oihw);
  const memory::desc bias({c}, f32, memory::format_tag::x);
  const dnnl::convolution_forward::primitive_desc pd(
      dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, algorithm, io,
                                      any_weights, bias, io, {1, 1}, {1, 1}, {1, 1}),
      engine);
  const at::Tensor w = at::randn({c, c, 3, 3}), b = at::randn({c});
  const at::Tensor x = at::randn({1, size, size, c}), y = at::empty({1, size, size, c});
  memory plain(plain_weights, engine, w.data_ptr()), packed(pd.weights_desc(), engine);
  dnnl::reorder(plain, packed).execute(stream, plain, packed);
  const std::unordered_map<int, memory> args = {
      {DNNL_ARG_SRC, memory(pd.src_desc(), engine, x.data_ptr())},
      {DNNL_ARG_WEIGHTS, packed},
      {DNNL_ARG_BIAS, memory(bias, engine, b.data_ptr())},
      {DNNL_ARG_DST, memory(pd.dst_desc(), engine, y.data_ptr())}};
  const dnnl::convolution_forward conv(pd);
  for (auto _ : state) conv.execute(stream, args);
  state.counters["gflops"] =
      benchmark::Counter(Flops(c, size) * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}

void BM_OneDnnDirect(benchmark::State& state) {
  OneDnn(state, dnnl::algorithm::convolution_direct, dnnl::memory::format_tag::nhwc);
}

// oneDNN's Winograd kernel (AVX-512 only), whose weight layout depends on the shape.
void BM_OneDnnWinograd(benchmark::State& state) {
  try {
    OneDnn(state, dnnl::algorithm::convolution_winograd, dnnl::memory::format_tag::any);
  } catch (const dnnl::error&) {
    state.SkipWithError("no oneDNN Winograd kernel for this shape on this CPU");
  }
}

const std::vector<std::vector<int64_t>> kShapes = {
    {16, 32, 64, 128, 256, 512},  // channels
    {4, 7, 14, 24, 28, 56},       // image size
};

BENCHMARK(BM_Winograd3x3)
    ->ArgsProduct({kShapes[0], kShapes[1], {2, 4}})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_OneDnnDirect)->ArgsProduct(kShapes)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_OneDnnWinograd)->ArgsProduct(kShapes)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace static_runtime
