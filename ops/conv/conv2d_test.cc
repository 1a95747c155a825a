// The oneDNN kernel of static_runtime::conv2d_fused (ops/conv/conv2d.cc)
// against a float64 reference, over random shapes (unbatched included),
// strides, padding, dilation (past the image included), groups (depthwise
// included), input layouts, residuals and activations, with output slots
// reused across calls; the same failures as ATen's ops for inputs a
// convolution rejects; and one kernel (one set of pre-packed weights) run
// from several threads at once; and the caches it keeps (ops/onednn/onednn.h).
//
// The tolerance is the summation error bound the kernel declares
// (ops/conv/conv_error_bounds.h). ATen's own float convolution must meet the same
// bound (checked, so the bound is not looser than it needs to be by
// construction).
#include <array>
#include <atomic>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "ATen/ATen.h"
#include "absl/synchronization/notification.h"
#include "execution/background_work.h"
#include "execution/kernel_caches.h"
#include "gtest/gtest.h"
#include "ir/operators/operators.h"
#include "ops/conv/conv_error_bounds.h"
#include "ops/core/out_variant_test_support.h"
#include "ops/core/registry.h"
#include "ops/kernels.h"
#include "ops/onednn/onednn.h"
#include "rapidcheck.h"
#include "rapidcheck/gtest.h"
#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {
namespace {

using testing::Draw;
using testing::SingleNode;
using testing::Slots;

struct ConvCase {
  at::Tensor weight;
  c10::optional<at::Tensor> bias;
  std::vector<int64_t> stride, padding, dilation;
  int64_t groups;
  std::string activation;
  double min_value = 0, max_value = 0;
};

// A graph holding one conv2d_fused node with `c`'s constants; its result is
// returned directly (contiguous layout) or through flatten (so the kernel may
// produce it channels-last).
SingleNode MakeConvGraph(const ConvCase& c, bool channels_last_output) {
  ops::EnsureOperatorsRegistered();
  auto graph = std::make_shared<torch::jit::Graph>();
  torch::jit::Value* input = graph->addInput("x")->setType(c10::TensorType::get());
  torch::jit::Value* residual =
      graph->addInput("r")->setType(c10::OptionalType::create(c10::TensorType::get()));
  std::vector<torch::jit::Value*> inputs = {
      input,
      graph->insertConstant(c.weight),
      graph->insertConstant(c.bias ? c10::IValue(*c.bias) : c10::IValue()),
      graph->insertConstant(c.stride),
      graph->insertConstant(c.padding),
      graph->insertConstant(c.dilation),
      graph->insertConstant(c.groups),
      residual,
      graph->insertConstant(c.activation),
      graph->insertConstant(c.min_value),
      graph->insertConstant(c.max_value)};
  torch::jit::Node* node = graph->insertNode(graph->create(ops::kConv2dFused, inputs, 1));
  node->output()->setType(c10::TensorType::get());
  torch::jit::Value* result = node->output();
  if (channels_last_output) {
    result = graph->insert(c10::aten::flatten, {result, int64_t{0}});
  }
  graph->registerOutput(result);
  return testing::BindOutVariant(GlobalKernels(), std::move(graph), node);
}

std::vector<c10::IValue> NodeInputs(const torch::jit::Node* node, const at::Tensor& x,
                                    const c10::optional<at::Tensor>& residual) {
  std::vector<c10::IValue> values;
  for (size_t i = 0; i < node->inputs().size(); ++i) {
    if (i == 0) {
      values.emplace_back(x);
    } else if (i == 7) {
      values.emplace_back(residual ? c10::IValue(*residual) : c10::IValue());
    } else {
      values.push_back(*torch::jit::toIValue(node->input(i)));
    }
  }
  return values;
}

at::Tensor Convolve(const ConvCase& c, const at::Tensor& x, const at::Tensor& w,
                    const c10::optional<at::Tensor>& bias) {
  return at::conv2d(x, w, bias, c.stride, c.padding, c.dilation, c.groups);
}

// What conv2d_fused computes, in float64: the exact result for practical
// purposes.
at::Tensor Exact(const ConvCase& c, const at::Tensor& x,
                 const c10::optional<at::Tensor>& residual) {
  const auto dbl = [](const at::Tensor& t) { return t.to(at::kDouble); };
  c10::optional<at::Tensor> bias = c.bias ? c10::optional<at::Tensor>(dbl(*c.bias)) : c10::nullopt;
  c10::optional<at::Tensor> residual_double =
      residual ? c10::optional<at::Tensor>(dbl(*residual)) : c10::nullopt;
  return ops::Conv2dEpilogue(Convolve(c, dbl(x), dbl(c.weight), bias), residual_double,
                             ops::FusedActivation::Parse(c.activation, c.min_value, c.max_value));
}

// Runs `conv` (made from `c`) on `x` and `residual` in `slots`; returns the
// kernel's error, or where its result leaves conv2d_fused's bound ("" if
// nowhere).
std::string RunOutsideBound(const ConvCase& c, const SingleNode& conv, Slots& slots,
                            const at::Tensor& x, const c10::optional<at::Tensor>& residual) {
  const std::vector<c10::IValue> inputs = NodeInputs(conv.node, x, residual);
  const std::string error = slots.Run(conv.kernel, inputs);
  if (!error.empty()) return error;
  return testing::OutsideBound(ops::Conv2dFusedErrorBound, inputs, Exact(c, x, residual),
                               slots.Output(0).toTensor());
}

// A 3 x 3, stride-1 convolution padded to keep the image's size (the shape
// Winograd kernels take), with a random weight and bias and a relu.
ConvCase SameSize3x3Case(int64_t out_channels, int64_t in_channels) {
  ConvCase c;
  c.weight = at::randn({out_channels, in_channels, 3, 3});
  c.bias = at::randn({out_channels});
  c.stride = c.dilation = c.padding = {1, 1};
  c.groups = 1;
  c.activation = "relu";
  return c;
}

ConvCase DrawCase(Draw& d) {
  ConvCase c;
  const bool depthwise = d.Int(0, 3) == 0;
  c.groups = depthwise ? d.Int(1, 6) : d.Int(1, 3);
  const int64_t in_per_group = depthwise ? 1 : d.Int(1, 5);
  const int64_t out_per_group = d.Int(1, 5);
  c.weight = at::randn({c.groups * out_per_group, in_per_group, d.Int(1, 4), d.Int(1, 4)});
  if (d.Bool()) c.bias = at::randn({c.groups * out_per_group});
  c.stride = {d.Int(1, 3), d.Int(1, 3)};
  c.dilation = {d.Int(1, 2), d.Int(1, 2)};
  c.padding = {d.Int(0, 2), d.Int(0, 2)};
  c.activation = d.OneOf<std::string>(
      {"none", "relu", "hardtanh", "hardswish", "hardsigmoid", "sigmoid", "silu", "gelu"});
  if (c.activation == "hardtanh") {
    c.min_value = -d.Int(0, 2) / 2.0;
    c.max_value = d.Int(1, 12) / 2.0;
  }
  return c;
}

// An image of min_size to max_size rows and columns.
at::Tensor DrawInput(Draw& d, const ConvCase& c, int64_t min_size = 1, int64_t max_size = 12) {
  const std::vector<int64_t> shape = {d.Int(0, 3), c.weight.size(1) * c.groups,
                                      d.Int(min_size, max_size), d.Int(min_size, max_size)};
  switch (d.Int(0, 3)) {
    case 0:
      return at::randn(shape);
    case 1:
      return at::randn(shape).contiguous(at::MemoryFormat::ChannelsLast);
    case 2:  // unbatched: [C, H, W]
      return at::randn({shape[1], shape[2], shape[3]});
    default:  // strided: every other column of a wider tensor
      return at::randn({shape[0], shape[1], shape[2], 2 * shape[3]}).slice(3, 0, c10::nullopt, 2);
  }
}

// A 3 x 3, stride 1 convolution of 16 to 96 channels, which may run a
// Winograd kernel: oneDNN's on AVX-512 (channel counts in multiples of 16,
// padding 0 or 1), ops::Winograd3x3 on AVX2 (64 channels or more); other
// shapes run directly.
ConvCase DrawWinogradCase(Draw& d) {
  ConvCase c;
  c.groups = 1;
  const auto channels = [&d] {
    switch (d.Int(0, 4)) {
      case 0:
        return d.Int(1, 40);
      case 1:
        return d.Int(64, 100);
      default:
        return 16 * d.Int(1, 4);
    }
  };
  c.weight = at::randn({channels(), channels(), 3, 3});
  if (d.Bool()) c.bias = at::randn({c.weight.size(0)});
  c.stride = c.dilation = {1, 1};
  const int64_t padding = d.Int(0, 4) == 0 ? 2 : d.Int(0, 1);
  c.padding = {padding, padding};
  c.activation = d.OneOf<std::string>({"none", "relu", "hardswish", "silu", "gelu"});
  return c;
}

// Inputs with a few large elements: a Winograd kernel's error grows with the
// largest input of a tile, not only with an output's own products.
at::Tensor DrawHeavyTailedInput(Draw& d, const ConvCase& c) {
  const at::Tensor x = at::randn({d.Int(1, 3), c.weight.size(1), d.Int(1, 20), d.Int(1, 20)});
  switch (d.Int(0, 2)) {
    case 0:
      return x;
    case 1:
      return x * at::exp(3 * at::randn(x.sizes()));
    default:
      return x * (1 + 1e4 * (at::rand(x.sizes()) < 0.01).to(at::kFloat));
  }
}

// A 1 x 1 convolution of a 1 x 1 image (a squeeze-and-excitation block's),
// which runs as a matrix-vector product per image.
ConvCase DrawOnePixelCase(Draw& d) {
  ConvCase c = DrawCase(d);
  c.weight = at::randn({d.Int(1, 200), d.Int(1, 300), 1, 1});
  c.bias = d.Bool() ? c10::optional<at::Tensor>(at::randn({c.weight.size(0)})) : c10::nullopt;
  c.groups = 1;
  c.padding = {0, 0};
  return c;
}

// Batched (NCHW or channels-last: the same dense rows) or unbatched; or with
// strided channels, which oneDNN's kernel takes.
at::Tensor DrawOnePixelInput(Draw& d, const ConvCase& c) {
  const int64_t channels = c.weight.size(1);
  switch (d.Int(0, 3)) {
    case 0:
      return at::randn({d.Int(1, 3), channels, 1, 1});
    case 1:
      return at::randn({d.Int(1, 3), channels, 1, 1}).contiguous(at::MemoryFormat::ChannelsLast);
    case 2:
      return at::randn({channels, 1, 1});
    default:
      return at::randn({d.Int(1, 3), 2 * channels, 1, 1}).slice(1, 0, c10::nullopt, 2);
  }
}

// A 1 x 1 convolution with a weight of 1 MiB or more (256K floats: a CNN's
// last stages), which on a few pixels runs as ops/linalg/streamed_linear.h's
// product, the weight streamed once.
ConvCase DrawStreamedCase(Draw& d) {
  ConvCase c = DrawCase(d);
  const int64_t channels = d.Int(256, 1100);
  c.weight = at::randn({(256 * 1024 + channels - 1) / channels + d.Int(0, 40), channels, 1, 1});
  c.bias = d.Bool() ? c10::optional<at::Tensor>(at::randn({c.weight.size(0)})) : c10::nullopt;
  c.groups = 1;
  c.padding = {0, 0};
  return c;
}

// A few pixels (up to 5 x 5, so that some shapes have more pixels than the
// streamed product takes), batched NCHW or channels-last (pixels read in
// place), strided channels (gathered) or unbatched.
at::Tensor DrawStreamedInput(Draw& d, const ConvCase& c) {
  const int64_t channels = c.weight.size(1);
  const int64_t batch = d.Int(1, 2), height = d.Int(1, 5), width = d.Int(1, 5);
  switch (d.Int(0, 3)) {
    case 0:
      return at::randn({batch, channels, height, width});
    case 1:
      return at::randn({batch, channels, height, width}).contiguous(at::MemoryFormat::ChannelsLast);
    case 2:
      return at::randn({channels, height, width});
    default:
      return at::randn({batch, 2 * channels, height, width}).slice(1, 1, c10::nullopt, 2);
  }
}

// A 1D convolution as conv1d lowers it (height 1): pointwise, depthwise
// (dilated) or dense with a longer kernel, a stride and a dilation (from
// fewer than 16 channels: ops/conv/few_channel.h), on a long signal,
// which runs on NCW layouts without reorders when its result is NCW.
ConvCase DrawOneDimensionalCase(Draw& d) {
  ConvCase c;
  const int64_t kind = d.Int(0, 2);
  const int64_t channels = d.Int(1, 40);
  c.groups = kind == 1 ? channels : 1;
  const int64_t out_channels = kind == 1 ? channels * d.Int(1, 2) : d.Int(1, 40);
  const int64_t width = kind == 0 ? 1 : d.Int(2, 12);
  c.weight = at::randn({out_channels, kind == 1 ? 1 : channels, 1, width});
  if (d.Bool()) c.bias = at::randn({out_channels});
  c.stride = {1, kind == 2 ? d.Int(1, 5) : kind == 1 ? d.Int(1, 2) : 1};
  c.dilation = {1, kind == 1 ? d.Int(1, 4) : kind == 2 ? d.Int(1, 3) : 1};
  c.padding = {0, d.Int(0, 3)};
  c.activation = d.OneOf<std::string>({"none", "relu", "gelu"});
  return c;
}

at::Tensor DrawOneDimensionalInput(Draw& d, const ConvCase& c) {
  const int64_t channels = c.weight.size(1) * c.groups;
  return d.Int(0, 3) == 0 ? at::randn({channels, 1, d.Int(1, 300)})
                          : at::randn({d.Int(1, 2), channels, 1, d.Int(1, 300)});
}

// A dilated convolution of an image that may be smaller than its dilation
// (as DeepLab's atrous pyramid meets a small feature map), so that outer
// taps read only padding: the kernel leaves them out.
ConvCase DrawDilatedPastTheImageCase(Draw& d) {
  ConvCase c = DrawCase(d);
  c.weight = at::randn({d.Int(1, 20), d.Int(1, 20), d.Int(1, 5), d.Int(1, 5)});
  c.groups = 1;
  c.bias = d.Bool() ? c10::optional<at::Tensor>(at::randn({c.weight.size(0)})) : c10::nullopt;
  for (int i = 0; i < 2; ++i) {
    c.dilation[i] = d.Int(1, 12);
    c.padding[i] = d.Int(0, c.dilation[i] * (c.weight.size(2 + i) - 1));
  }
  return c;
}

// Larger dilated convolutions whose outputs near the edges read fewer taps
// than those inside (DeepLab's atrous pyramid on a 28x28 map), some outputs
// only padding: enough multiply-adds on padding for the kernel to compute
// them region by region.
ConvCase DrawDilatedRegionsCase(Draw& d) {
  ConvCase c = DrawCase(d);
  c.groups = d.Int(1, 2);
  c.weight = at::randn({c.groups * d.Int(16, 32), d.Int(16, 32), d.Int(2, 4), d.Int(2, 4)});
  c.bias = d.Bool() ? c10::optional<at::Tensor>(at::randn({c.weight.size(0)})) : c10::nullopt;
  c.stride = {1, 1};
  for (int i = 0; i < 2; ++i) {
    c.dilation[i] = d.Int(3, 10);
    c.padding[i] = d.Int(c.dilation[i], c.dilation[i] * c.weight.size(2 + i));
  }
  return c;
}

enum class Shapes {
  kAny,
  kWinograd,
  kOnePixel,
  kStreamed,
  kOneDimensional,
  kDilatedPastTheImage,
  kDilatedRegions
};

void CheckWithinTheStatedBound(Shapes shapes) {
  at::manual_seed(*rc::gen::inRange(0, 1 << 20));
  Draw d;
  const ConvCase c = shapes == Shapes::kWinograd              ? DrawWinogradCase(d)
                     : shapes == Shapes::kOnePixel            ? DrawOnePixelCase(d)
                     : shapes == Shapes::kStreamed            ? DrawStreamedCase(d)
                     : shapes == Shapes::kOneDimensional      ? DrawOneDimensionalCase(d)
                     : shapes == Shapes::kDilatedPastTheImage ? DrawDilatedPastTheImageCase(d)
                     : shapes == Shapes::kDilatedRegions      ? DrawDilatedRegionsCase(d)
                                                              : DrawCase(d);
  const bool channels_last_output = d.Bool();
  SingleNode conv = MakeConvGraph(c, channels_last_output);
  Slots slots(1);
  // Several calls on one set of slots: shapes change, output tensors are reused.
  for (int call = 0; call < 3; ++call) {
    const at::Tensor x = shapes == Shapes::kWinograd         ? DrawHeavyTailedInput(d, c)
                         : shapes == Shapes::kOnePixel       ? DrawOnePixelInput(d, c)
                         : shapes == Shapes::kStreamed       ? DrawStreamedInput(d, c)
                         : shapes == Shapes::kOneDimensional ? DrawOneDimensionalInput(d, c)
                         : shapes == Shapes::kDilatedRegions ? DrawInput(d, c, 12, 24)
                                                             : DrawInput(d, c);
    c10::optional<at::Tensor> aten_result;
    std::string aten_error;
    try {
      aten_result = Convolve(c, x, c.weight, c.bias);
    } catch (const std::exception& e) {
      aten_error = e.what();
    }
    c10::optional<at::Tensor> residual;
    if (aten_result && d.Bool()) {
      // Same shape (fused), or broadcasting from [C, 1, 1] (ATen's add).
      residual = d.Bool() ? at::randn(aten_result->sizes())
                          : at::randn({aten_result->size(aten_result->dim() - 3), 1, 1});
    }
    const std::vector<c10::IValue> inputs = NodeInputs(conv.node, x, residual);
    const std::string error = slots.Run(conv.kernel, inputs);
    if (!aten_result) {
      RC_ASSERT(!error.empty());  // ATen rejects it: so must the kernel
      continue;
    }
    RC_ASSERT(error == "");
    const at::Tensor actual = slots.Output(0).toTensor();
    // (An empty batch runs ATen's conv2d, whose result has ATen's layout;
    // an unbatched result has no channels-last layout.)
    RC_ASSERT(actual.numel() == 0 || actual.is_contiguous(channels_last_output && actual.dim() == 4
                                                              ? at::MemoryFormat::ChannelsLast
                                                              : at::MemoryFormat::Contiguous));
    const at::Tensor exact = Exact(c, x, residual);
    const std::string ours =
        testing::OutsideBound(ops::Conv2dFusedErrorBound, inputs, exact, actual);
    if (!ours.empty()) {
      RC_FAIL(c10::str("oneDNN kernel: ", ours, " weight ", c.weight.sizes(), " stride ", c.stride,
                       " padding ", c.padding, " dilation ", c.dilation, " groups ", c.groups, " ",
                       c.activation, " input ", x.sizes(), " strides ", x.strides(), " residual ",
                       residual ? residual->sizes() : at::IntArrayRef(), " channels-last output ",
                       channels_last_output, " call ", call));
    }
    const at::Tensor aten_fused =
        ops::Conv2dEpilogue(*aten_result, residual,
                            ops::FusedActivation::Parse(c.activation, c.min_value, c.max_value));
    const std::string atens =
        testing::OutsideBound(ops::Conv2dFusedErrorBound, inputs, exact, aten_fused);
    if (!atens.empty()) RC_FAIL("ATen's convolution: " + atens);
  }
}

RC_GTEST_PROP(OneDnnConvProperty, WithinTheStatedBoundOfTheExactResult, ()) {
  CheckWithinTheStatedBound(Shapes::kAny);
}

RC_GTEST_PROP(OneDnnConvProperty, WinogradShapesWithinTheirStatedBound, ()) {
  CheckWithinTheStatedBound(Shapes::kWinograd);
}

RC_GTEST_PROP(OneDnnConvProperty, OnePixelImagesWithinTheStatedBound, ()) {
  CheckWithinTheStatedBound(Shapes::kOnePixel);
}

RC_GTEST_PROP(OneDnnConvProperty, StreamedWeightsWithinTheStatedBound, ()) {
  CheckWithinTheStatedBound(Shapes::kStreamed);
}

RC_GTEST_PROP(OneDnnConvProperty, OneDimensionalSignalsWithinTheStatedBound, ()) {
  CheckWithinTheStatedBound(Shapes::kOneDimensional);
}

RC_GTEST_PROP(OneDnnConvProperty, DilatedPastTheImageWithinTheStatedBound, ()) {
  CheckWithinTheStatedBound(Shapes::kDilatedPastTheImage);
}

RC_GTEST_PROP(OneDnnConvProperty, DilatedRegionsWithinTheStatedBound, ()) {
  CheckWithinTheStatedBound(Shapes::kDilatedRegions);
}

// Dense convolutions of inputs large enough for the channel-block kernel
// on AVX2 (kMinBlockedAvx2InputFloats; //ops/conv:conv2d_test runs under
// the AVX2 entry of the CPU matrix too), NCHW and channels-last, with a
// residual and an activation, against the stated bound.
TEST(OneDnnConvTest, LargeImagesWithinTheStatedBound) {
  at::manual_seed(3);
  for (const bool strided : {false, true}) {
    ConvCase c;
    c.weight = at::randn({16, 24, 3, strided ? 2 : 3});
    c.bias = at::randn({16});
    c.stride = strided ? std::vector<int64_t>{2, 1} : std::vector<int64_t>{1, 1};
    c.dilation = strided ? std::vector<int64_t>{1, 2} : std::vector<int64_t>{1, 1};
    c.padding = {1, 1};
    c.groups = 1;
    c.activation = strided ? "none" : "relu";
    for (const bool channels_last : {false, true}) {
      at::Tensor x = at::randn({1, 24, 150, 152});
      if (channels_last) x = x.contiguous(at::MemoryFormat::ChannelsLast);
      const at::Tensor aten_result = Convolve(c, x, c.weight, c.bias);
      const c10::optional<at::Tensor> residual =
          strided ? c10::optional<at::Tensor>(at::randn(aten_result.sizes())) : c10::nullopt;
      SingleNode conv = MakeConvGraph(c, channels_last);
      Slots slots(1);
      EXPECT_EQ(RunOutsideBound(c, conv, slots, x, residual), "")
          << "strided " << strided << " channels-last " << channels_last;
    }
  }
}

// 64 -> 72 channels on images large enough for the 4 x 4 tiles of the AVX2
// Winograd kernel (40 x 40) and on smaller ones (2 x 2 tiles), with a
// residual and a relu, from NCHW and channels-last inputs, heavy-tailed.
TEST(OneDnnConvTest, WinogradTilesWithinTheStatedBound) {
  at::manual_seed(5);
  const ConvCase c = SameSize3x3Case(72, 64);
  SingleNode conv = MakeConvGraph(c, /*channels_last_output=*/true);
  Slots slots(1);
  for (const int64_t size : {40, 10}) {
    for (const bool channels_last : {false, true}) {
      at::Tensor x = at::randn({2, 64, size, size});
      x = x * (1 + 1e4 * (at::rand(x.sizes()) < 0.01).to(at::kFloat));
      if (channels_last) x = x.contiguous(at::MemoryFormat::ChannelsLast);
      const c10::optional<at::Tensor> residual = at::randn({2, 72, size, size});
      EXPECT_EQ(RunOutsideBound(c, conv, slots, x, residual), "")
          << "size " << size << " channels-last " << channels_last;
    }
  }
}

// oneDNN's Winograd kernels want the weight in a layout that depends on the
// input's shape (AVX-512: 256 channels on 8 x 8 images take F(2x2, 3x3)
// one image at a time, F(4x4, 3x3) four at a time and from 16 x 16 on).
// The weight is packed in one Winograd layout at most, whatever shapes
// come, by the background work after the first call (which runs ATen's
// convolution meanwhile): later, a batch runs image by image in that
// layout, or the direct kernel runs it; every result, before and after,
// within the bound.
TEST(OneDnnConvTest, AWeightTakesOneWinogradLayoutWhateverTheShapes) {
  at::manual_seed(9);
  const ConvCase c = SameSize3x3Case(256, 256);
  SingleNode conv = MakeConvGraph(c, /*channels_last_output=*/true);
  Slots slots(1);
  const auto winograd_copies = [&] {
    int copies = 0;
    for (const onednn::PackedCopy& copy : onednn::PacksOf(c.weight.data_ptr())) {
      copies += copy.format.format_kind == dnnl_format_kind_wino;
    }
    return copies;
  };
  const auto run = [&](const std::vector<int64_t>& sizes, const char* when) {
    const at::Tensor x = at::randn(sizes).contiguous(at::MemoryFormat::ChannelsLast);
    EXPECT_EQ(RunOutsideBound(c, conv, slots, x, c10::nullopt), "") << when << " " << sizes;
  };
  // Three shapes of three layouts meet before any is packed (the background
  // thread held): one is packed.
  const std::vector<std::vector<int64_t>> first = {{1, 256, 8, 8}, {4, 256, 8, 8}, {3, 256, 8, 8}};
  absl::Notification release;
  PostBackgroundWork([&] { release.WaitForNotification(); });
  for (const std::vector<int64_t>& sizes : first) run(sizes, "before packing");
  release.Notify();
  WaitForBackgroundWork();
  EXPECT_LE(winograd_copies(), 1);
  for (const std::vector<int64_t>& sizes : first) run(sizes, "after packing");
  // Later shapes of other layouts.
  for (const std::vector<int64_t>& sizes :
       std::vector<std::vector<int64_t>>{{1, 256, 16, 16}, {2, 256, 14, 14}}) {
    run(sizes, "later");
    WaitForBackgroundWork();
    run(sizes, "later, again");
    EXPECT_LE(winograd_copies(), 1) << "after input " << sizes;
  }
  if (winograd_copies() == 0) GTEST_SKIP() << "oneDNN has no Winograd kernel on this CPU";
}

// Taps that only read padding still multiply it by their weight: an
// infinite or NaN weight there makes ATen's result NaN, and so the kernel's.
TEST(OneDnnConvTest, NonFiniteTapsOnPaddingGiveAtensNaN) {
  ConvCase c;
  c.weight = at::randn({8, 16, 3, 3});
  c.stride = {1, 1};
  c.dilation = c.padding = {6, 6};
  c.groups = 1;
  c.activation = "none";
  const at::Tensor x = at::randn({1, 16, 5, 5}).contiguous(at::MemoryFormat::ChannelsLast);
  for (const float poison : {std::numeric_limits<float>::infinity(), std::nanf("")}) {
    c.weight[2][3][0][0] = poison;
    SingleNode conv = MakeConvGraph(c, true);
    Slots slots(1);
    ASSERT_EQ(slots.Run(conv.kernel, NodeInputs(conv.node, x, c10::nullopt)), "");
    const at::Tensor expected = Convolve(c, x, c.weight, c.bias);
    ASSERT_TRUE(expected.isnan().any().item<bool>());
    EXPECT_TRUE(at::equal(slots.Output(0).toTensor().isnan(), expected.isnan())) << poison;
  }
}

TEST(OneDnnConvTest, RejectsWhatAtenRejectsWithAtensMessage) {
  ConvCase c;
  c.weight = at::randn({4, 3, 3, 3});
  c.stride = c.dilation = {1, 1};
  c.padding = {0, 0};
  c.groups = 1;
  c.activation = "relu";
  SingleNode conv = MakeConvGraph(c, false);
  Slots slots(1);
  // 2 channels where the weight wants 3; then an image smaller than the kernel.
  for (const at::Tensor& x : {at::randn({1, 2, 5, 5}), at::randn({1, 3, 2, 2})}) {
    EXPECT_EQ(testing::RejectsAsAten([&] { Convolve(c, x, c.weight, c.bias); }, slots, conv.kernel,
                                     NodeInputs(conv.node, x, c10::nullopt)),
              "");
  }
  // The kernel stays usable.
  EXPECT_EQ(slots.Run(conv.kernel, NodeInputs(conv.node, at::randn({1, 3, 5, 5}), c10::nullopt)),
            "");
}

// 8 input channels: a direct kernel; 16: a Winograd one where the ISA has
// it (oneDNN's on AVX-512, which then keeps per-thread buffers for the
// blocked layouts); 64 to 64: ops::Winograd3x3 on AVX2 (per-thread buffers
// too).
TEST(OneDnnConvTest, OneKernelRunsOnSeveralThreadsAtOnce) {
  for (const auto& [channels, filters] : {std::pair<int64_t, int64_t>{8, 16}, {16, 16}, {64, 64}}) {
    const ConvCase c = SameSize3x3Case(filters, channels);
    SingleNode conv = MakeConvGraph(c, true);
    const std::vector<at::Tensor> inputs = {
        at::randn({1, channels, 9, 9}), at::randn({2, channels, 5, 7}),
        at::randn({1, channels, 16, 16}), at::randn({3, channels, 4, 4})};
    std::vector<std::vector<c10::IValue>> input_sets;
    for (const at::Tensor& x : inputs) {
      input_sets.push_back(NodeInputs(conv.node, x, c10::nullopt));
    }
    // Each shape's plan made, and upgraded to Winograd where it will be
    // (MakePlan), before the results are compared bit for bit.
    Slots slots(1);
    for (const std::vector<c10::IValue>& set : input_sets)
      ASSERT_EQ(slots.Run(conv.kernel, set), "");
    WaitForBackgroundWork();
    const std::vector<std::string> failures =
        testing::SameResultsOnSeveralThreads(conv.kernel, input_sets);
    for (size_t t = 0; t < inputs.size(); ++t) {
      EXPECT_EQ(failures[t], "") << channels << " channels, thread " << t;
    }
  }
}

// The caches the kernel keeps (ops/onednn/onednn.h): PlanCache's plans per input
// shape, at most the account's number of them, the least recently used
// dropped first, a plan in use kept alive; PackedWeights' copies counted in
// the prepared weights.
using onednn::FloatDesc;
using onednn::PackedWeights;
using onednn::PlanCache;
using Key = PlanCache<int64_t>::Key;

Key ShapeKey(int64_t n) { return {n, 3, 8, 8}; }

// Gets the plan of shape `n` (its value: n), counting the plans made.
std::shared_ptr<const int64_t> GetPlan(PlanCache<int64_t>& cache, int64_t n, int& made) {
  return cache.Get(ShapeKey(n), [&] {
    ++made;
    return std::make_unique<int64_t>(n);
  });
}

TEST(PlanCacheTest, KeepsTheMostRecentlyUsedShapesWithinItsBound) {
  auto account = std::make_shared<KernelCacheAccount>(2);
  int made = 0;
  {
    const KernelCacheScope scope(account);
    PlanCache<int64_t> cache;
    EXPECT_EQ(*GetPlan(cache, 1, made), 1);
    EXPECT_EQ(*GetPlan(cache, 2, made), 2);
    EXPECT_EQ(*GetPlan(cache, 1, made), 1);  // 1 is now the more recent
    EXPECT_EQ(made, 2);
    EXPECT_EQ(*GetPlan(cache, 3, made), 3);  // drops 2, the least recently used
    EXPECT_EQ(made, 3);
    EXPECT_EQ(*GetPlan(cache, 1, made), 1);
    EXPECT_EQ(made, 3);
    EXPECT_EQ(*GetPlan(cache, 2, made), 2);  // made again; drops 3
    EXPECT_EQ(made, 4);
    EXPECT_EQ(*GetPlan(cache, 1, made), 1);
    EXPECT_EQ(made, 4);
    const KernelCacheStats stats = account->Stats();
    EXPECT_EQ(stats.shape_plans, 2u);
    EXPECT_EQ(stats.shape_plans_made, 4u);
    EXPECT_EQ(stats.shape_plans_evicted, 2u);
  }
  // The cache is gone, and its plans with it.
  EXPECT_EQ(account->Stats().shape_plans, 0u);
}

TEST(PlanCacheTest, APlanInUseOutlivesItsEviction) {
  auto account = std::make_shared<KernelCacheAccount>(1);
  const KernelCacheScope scope(account);
  PlanCache<std::vector<int64_t>> cache;
  const std::shared_ptr<const std::vector<int64_t>> held =
      cache.Get(ShapeKey(7), [] { return std::make_unique<std::vector<int64_t>>(1000, 7); });
  cache.Get(ShapeKey(8), [] { return std::make_unique<std::vector<int64_t>>(1000, 8); });
  EXPECT_EQ(account->Stats().shape_plans_evicted, 1u);
  ASSERT_EQ(held->size(), 1000u);
  EXPECT_EQ((*held)[999], 7);
}

TEST(PlanCacheTest, ThreadsGetTheirShapesPlansWhileOthersAreDropped) {
  auto account = std::make_shared<KernelCacheAccount>(3);
  const KernelCacheScope scope(account);
  PlanCache<int64_t> cache;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        const int64_t n = 1 + (i * 7 + t) % 6;  // 6 shapes through a cache of 3
        const std::shared_ptr<const int64_t> plan =
            cache.Get(ShapeKey(n), [n] { return std::make_unique<int64_t>(n); });
        if (*plan != n) wrong.fetch_add(1);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
  const KernelCacheStats stats = account->Stats();
  EXPECT_LE(stats.shape_plans, 3u);
  EXPECT_EQ(stats.shape_plans, stats.shape_plans_made - stats.shape_plans_evicted);
  EXPECT_GT(stats.shape_plans_evicted, 0u);
}

TEST(PackedWeightsTest, CopiesCountAsPreparedWeightsWhileTheCacheLives) {
  auto account = std::make_shared<KernelCacheAccount>();
  at::Tensor weight = at::randn({32, 16, 3, 3});
  const dnnl::memory::desc plain = FloatDesc({32, 16, 3, 3}, dnnl::memory::format_tag::oihw);
  const dnnl::memory::desc blocked = FloatDesc({32, 16, 3, 3}, dnnl::memory::format_tag::OIhw8i8o);
  {
    std::unique_ptr<PackedWeights> packed;
    {
      const KernelCacheScope scope(account);
      packed = std::make_unique<PackedWeights>(plain, weight.data_ptr());
    }
    EXPECT_EQ(account->Stats().prepared_weights, 0u);
    const dnnl::memory copy = packed->Get(blocked);
    packed->Get(blocked);  // the same copy
    EXPECT_EQ(account->Stats().prepared_weights, 1u);
    EXPECT_EQ(account->Stats().prepared_weight_bytes, blocked.get_size());
    // The copy holds the weight, re-laid out.
    const float* data = static_cast<const float*>(copy.get_data_handle());
    EXPECT_EQ(data[0], weight[0][0][0][0].item<float>());
    EXPECT_EQ(data[1], weight[1][0][0][0].item<float>());
  }
  EXPECT_EQ(account->Stats().prepared_weights, 0u);
  EXPECT_EQ(account->Stats().prepared_weight_bytes, 0u);
}

}  // namespace
}  // namespace static_runtime
