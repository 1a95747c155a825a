// The out-variant kernel of static_runtime::conv2d_fused (passes/prepack_weights.h):
// a oneDNN convolution on dense channels-last activations with the frozen
// weights re-laid out once, in the blocked format oneDNN's kernel for that
// shape wants, and shared by every thread and every input shape that wants
// the same format. A 3 x 3 stride-1 convolution runs oneDNN's Winograd
// kernel where oneDNN has one for the shape (AVX-512, channels in multiples
// of 16, padding 0 or 1): 1.4-3x faster than the direct one, on the blocked
// layout that kernel wants, reordered from and to channels-last in per-thread
// buffers. Its weight format depends on the shape; the weight takes one of
// them at most (MakePlan). An NCHW input (a model's image, a concatenation's result) is
// reordered to channels-last by oneDNN in a per-thread buffer (ATen's copy
// takes 5-20x longer). A 1 x 1 convolution of a 1 x 1 image (squeeze-and-
// excitation blocks) runs as a matrix-vector product, and one of a large
// weight on a few pixels (the last stages of a CNN at batch 1: 1024 -> 2048
// channels on 2 x 2 pixels), whose time is reading the weight, likewise:
// both as ops/linalg/streamed_linear.h's product, the weight streamed once.
// Taps that read only padding for every output (a dilation larger than the
// image: DeepLab's atrous pyramid) are left out, on a weight cut to the
// live taps, packed once per input shape that needs it. Where outputs near
// the edges read fewer taps than those inside and that leaves out a
// quarter of the work or more (the pyramid on a larger map), the output is
// computed region by region, each region a convolution without padding
// through its own taps.
// A 1D convolution (height 1) between NCW signals runs without reorders:
// a pointwise one as oneDNN's matrix product on NCW, a depthwise one by
// ops/conv/depthwise.h, one from a few input channels (a waveform) by
// ops/conv/few_channel.h.
// The residual add and the activation run as ATen's
// in-place ops on the result, so their values (NaN included) are exactly
// what aten::add and the activation give on the convolution's result (relu
// and hardtanh by ops/activations/clamp_in_place.h, ATen's values without
// its dispatch); silu and gelu run as ops/activations/epilogue_activations.h's
// (within the declared bound).
// (oneDNN's "sum" post-op is not used: on this oneDNN it skips the sum on
// output rows that see only padding, found by //ops/conv:conv2d_test.)
//
// The result is channels-last when no one can observe its strides
// (ops/core/channels_last.h), else contiguous as ATen's is for contiguous inputs.
// Inputs the kernel does not take (other dtypes, empty sizes, mismatched
// channels, a residual that broadcasts) run ATen's ops instead, which give
// ATen's result or error. So does a weight holding inf or NaN: whether a
// tap on the padding adds 0 x inf = NaN depends on the implementation
// oneDNN picks for the CPU (its im2col does, its direct kernels skip the
// padding), and ATen's convolution adds it.
//
// Numerics: oneDNN sums the C/groups * kh * kw products in another order than
// ATen's convolution (Winograd: of transformed tiles); the bound it declares
// is in ops/conv/conv_error_bounds.h, the tolerance table in docs/convolutions.md.
#include <algorithm>
#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ATen/ATen.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "c10/util/SmallVector.h"
#include "execution/background_work.h"
#include "execution/kernel_caches.h"
#include "glog/logging.h"
#include "ir/operators/operators.h"
#include "ops/conv/conv_error_bounds.h"
#include "ops/conv/depthwise.h"
#include "ops/conv/few_channel.h"
#include "ops/conv/winograd_3x3.h"
#include "ops/core/channels_last.h"
#include "ops/core/out_variant.h"
#include "ops/linalg/streamed_linear.h"
#include "ops/onednn/onednn.h"
#include "torch/csrc/jit/ir/constants.h"

namespace static_runtime {
namespace {

// An NCHW input with fewer channels than this (a model's image) is read as
// NCHW by oneDNN's first-layer kernels where it has one.
constexpr int64_t kFirstLayerChannels = 16;

// The Winograd layouts a weight is packed in at most (see MakePlan).
constexpr size_t kMaxWinogradLayouts = 1;
// oneDNN's Winograd kernel loses to its direct one on results of fewer
// positions than this per image: it reads a weight 16/9 the size and has a
// larger fixed cost (one thread, AVX-512: 128 -> 32 channels at 2x2 30 us
// against 16, at 4x4 31 against 23; 512 -> 512 at 3x3 1.61 against 1.40 ms;
// at 6x6, 256 -> 256, Winograd wins, 0.49 against 0.57 ms).
constexpr int64_t kMinWinogradOutputs = 5 * 5;
// A Winograd copy of at least this many bytes is packed by the background
// work; a smaller one at once (oneDNN's reorder: 7-15 ms for 64 x 64
// channels, 0.6 MB, up to 0.2 s for 512 x 512, 38 MB).
constexpr size_t kMinBackgroundPackBytes = size_t{64} << 10;

// On AVX2, a dense convolution of an input (the whole batch) of at least this many
// floats runs on channel blocks (see MakePlan).
constexpr int64_t kMinBlockedAvx2InputFloats = int64_t{1} << 19;

using dnnl::memory;

// A two-element hyper-parameter (a one-element list means both).
std::vector<int64_t> Pair(const std::vector<int64_t>& values) {
  return values.size() == 1 ? std::vector<int64_t>{values[0], values[0]} : values;
}

// The weight is [K, C / groups, kh, kw], the bias [K] or undefined.
struct ConvParams : onednn::FrozenParams {
  std::vector<int64_t> stride, padding, dilation;
  int64_t groups;
  bool channels_last_output;
};

// The dims of a weight `w` of `g` groups as oneDNN sees them: [K, C, kh, kw],
// or grouped [g, K / g, C / g, kh, kw].
memory::dims WeightDims(const at::Tensor& w, int64_t g) {
  return g == 1 ? memory::dims{w.size(0), w.size(1), w.size(2), w.size(3)}
                : memory::dims{g, w.size(0) / g, w.size(1), w.size(2), w.size(3)};
}

// A contiguous weight `w` of `g` groups as it is stored.
memory::desc PlainWeightDesc(const at::Tensor& w, int64_t g) {
  return onednn::FloatDesc(WeightDims(w, g),
                           g == 1 ? memory::format_tag::oihw : memory::format_tag::goihw);
}

// The taps [first, last] along one dimension of a kernel of `taps` taps
// that read the input (of `in` positions) for some output (of `out`); the
// taps before and after only ever read padding. (A dilated convolution of
// an image smaller than its dilation, as DeepLab's atrous pyramid on a small
// feature map, reads the input only with its centre taps.)
struct TapRange {
  int64_t first, last;
};
TapRange LiveTaps(int64_t in, int64_t out, int64_t taps, int64_t stride, int64_t dilation,
                  int64_t padding) {
  const auto live = [&](int64_t tap) {
    const int64_t offset = tap * dilation - padding;  // the input position output 0 reads
    // The first output that reads at or after position 0, then whether it
    // exists and reads before position `in`.
    const int64_t first_output = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
    return first_output < out && first_output * stride + offset < in;
  };
  TapRange range = {0, taps - 1};
  while (range.first < range.last && !live(range.first)) ++range.first;
  while (range.last > range.first && !live(range.last)) --range.last;
  return range;
}

// Output positions [begin, end) along one dimension of a stride-1
// convolution that read the input through the same taps; taps.first >
// taps.last when they read only padding.
struct Interval {
  int64_t begin, end;
  TapRange taps;
};

// The dimension's outputs cut where a tap starts or stops reading the input
// (output o reads position o - padding + t * dilation through tap t).
std::vector<Interval> LiveIntervals(int64_t in, int64_t out, int64_t taps, int64_t dilation,
                                    int64_t padding) {
  std::vector<int64_t> cuts = {0, out};
  for (int64_t t = 0; t < taps; ++t) {
    for (const int64_t cut : {padding - t * dilation, in + padding - t * dilation}) {
      if (cut > 0 && cut < out) cuts.push_back(cut);
    }
  }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  std::vector<Interval> intervals;
  for (size_t i = 0; i + 1 < cuts.size(); ++i) {
    Interval interval = {cuts[i], cuts[i + 1], {taps, -1}};
    for (int64_t t = 0; t < taps; ++t) {
      const int64_t position = interval.begin - padding + t * dilation;
      if (position < 0 || position >= in) continue;
      interval.taps.first = std::min(interval.taps.first, t);
      interval.taps.last = t;
    }
    intervals.push_back(interval);
  }
  return intervals;
}

// The share of the kernel's taps that read the input, over the outputs.
double LiveShare(const std::vector<Interval>& intervals, int64_t taps) {
  int64_t live = 0, total = 0;
  for (const Interval& interval : intervals) {
    const int64_t outputs = interval.end - interval.begin;
    live += outputs * std::max<int64_t>(0, interval.taps.last - interval.taps.first + 1);
    total += outputs * taps;
  }
  return total == 0 ? 1.0 : static_cast<double>(live) / static_cast<double>(total);
}

// A stride-1 convolution that oneDNN would compute by im2col (multiplying
// the padding) is computed region by region (each a convolution without
// padding on the input window its outputs read, through the taps they
// read) when that leaves out at least this share of its multiply-adds...
constexpr double kMinDeadShareToSplit = 0.25;
// ...and at least this many of them (each region costs two copies and a
// call).
constexpr double kMinDeadMultiplyAddsToSplit = 4e6;

class Conv2dKernel : public std::enable_shared_from_this<Conv2dKernel> {
 public:
  explicit Conv2dKernel(ConvParams params)
      : account_(KernelCacheScope::Current()),
        params_(std::move(params)),
        packed_(PlainWeightDesc(params_.weight, params_.groups), params_.weight.data_ptr()),
        finite_weight_(params_.weight.isfinite().all().item<bool>()),
        winograd_shape_(ops::WinogradShape(params_.weight.sizes(), params_.stride, params_.dilation,
                                           params_.groups)),
        winograd_(params_.weight.data_ptr<float>(),
                  params_.bias.defined() ? params_.bias.data_ptr<float>() : nullptr,
                  params_.weight.size(0), params_.weight.size(1)) {}

  void operator()(NodeIO& io) {
    const at::Tensor& input = TensorArg(io, 0);
    const c10::optional<at::Tensor> residual = OptionalTensorArg(io, 7);
    const std::vector<int64_t> out_sizes = OutputSizes(input);
    if (out_sizes.empty() || !finite_weight_) {
      io.Output(0) = Reference(input, residual);
      return;
    }
    const bool has_residual = residual && residual->defined();
    if (has_residual &&
        (residual->scalar_type() != at::kFloat || !residual->sizes().equals(out_sizes))) {
      // A broadcasting or promoting residual: ATen's add after our convolution.
      at::Tensor conv = at::empty({0}, at::kFloat);
      Compute(input, c10::nullopt, out_sizes, conv);
      io.Output(0) = ops::Conv2dEpilogue(conv, residual, params_.activation);
      return;
    }
    at::Tensor& out = ReusableOrNewOutput(io, 0, at::kFloat);
    Compute(input, residual, out_sizes, out);
    onednn::ApplyActivation(params_, out);
  }

 private:
  // [N, K, OH, OW] ([K, OH, OW] for an unbatched [C, H, W] input, as ATen
  // computes it: a batch of one), or empty when the kernel does not take
  // `input`.
  std::vector<int64_t> OutputSizes(const at::Tensor& input) const {
    const at::Tensor& w = params_.weight;
    if (input.scalar_type() != at::kFloat || (input.dim() != 4 && input.dim() != 3) ||
        !input.is_cpu() || input.numel() == 0 || input.is_neg() || input.is_conj()) {
      return {};
    }
    const int64_t channels = input.dim() - 3;  // the channel dimension
    if (input.size(channels) != w.size(1) * params_.groups) return {};
    std::vector<int64_t> sizes = {w.size(0)};
    if (channels == 1) sizes.insert(sizes.begin(), input.size(0));
    for (int i = 0; i < 2; ++i) {
      const int64_t extent = params_.dilation[i] * (w.size(2 + i) - 1) + 1;
      const int64_t padded = input.size(channels + 1 + i) + 2 * params_.padding[i];
      if (padded < extent) return {};
      sizes.push_back((padded - extent) / params_.stride[i] + 1);
    }
    return sizes;
  }

  // Writes the convolution (+ a residual of its shape) into `out`, resized to
  // `out_sizes`.
  void Compute(const at::Tensor& input, const c10::optional<at::Tensor>& residual,
               const std::vector<int64_t>& out_sizes, at::Tensor& out) {
    const bool unbatched = input.dim() == 3;
    const at::Tensor batched = unbatched ? input.unsqueeze(0) : input;
    std::vector<int64_t> batched_out = out_sizes;
    if (unbatched) batched_out.insert(batched_out.begin(), 1);
    if (ComputeByRegions(batched, batched_out, unbatched, out)) {
      if (residual && residual->defined()) out.add_(*residual);
      return;
    }
    // An NCHW image (a model's input, a concatenation's result) is reordered
    // by oneDNN into a per-thread buffer, much faster than ATen's copy.
    const bool nchw =
        batched.is_contiguous() && !batched.is_contiguous(at::MemoryFormat::ChannelsLast);
    // An unbatched result has no channels-last layout. A contiguous (NCHW)
    // result is written by oneDNN's reorder from the convolution's layout,
    // much faster than ATen's copy.
    const bool nchw_output = !params_.channels_last_output || unbatched;
    if (Streamed(batched_out, nchw_output)) {
      ComputeStreamed(batched, batched_out, out_sizes, nchw_output, out);
      if (residual && residual->defined()) out.add_(*residual);
      return;
    }
    if (OnePixel(batched) && ops::StreamedLinear::Available()) {
      // A matrix-vector product per image: oneDNN's convolution would spend
      // most of its time outside the products.
      at::native::resize_(out, out_sizes);
      StreamedProduct().Run(batched.data_ptr<float>(), batched.size(0), out.data_ptr<float>());
      if (residual && residual->defined()) out.add_(*residual);
      return;
    }
    if (batched.is_contiguous() && nchw_output &&
        OneDimensionalLoop(batched, out_sizes, batched_out[3], out)) {
      // Between NCW signals (a one-channel signal is also channels-last):
      // our loop, without oneDNN's reorders.
      if (residual && residual->defined()) out.add_(*residual);
      return;
    }
    if (const int tile = WinogradTile(batched_out); tile != 0 && !nchw_output) {
      // (An NCHW input is copied channels-last: a small part of the time
      // Winograd saves from 64 channels on.)
      const at::Tensor src = batched.contiguous(at::MemoryFormat::ChannelsLast);
      at::native::resize_(out, out_sizes, at::MemoryFormat::ChannelsLast);
      winograd_.ForTile(tile).Run(
          {batched.size(0), batched.size(2), batched.size(3), params_.padding[0],
           params_.padding[1], batched_out[2], batched_out[3]},
          src.data_ptr<float>(), out.data_ptr<float>());
      if (residual && residual->defined()) out.add_(*residual);
      return;
    }
    const at::Tensor src = nchw ? batched : batched.contiguous(at::MemoryFormat::ChannelsLast);
    at::native::resize_(
        out, out_sizes,
        nchw_output ? at::MemoryFormat::Contiguous : at::MemoryFormat::ChannelsLast);
    // (`cached` is held while it runs: the cache may drop it meanwhile.)
    const std::shared_ptr<const ShapePlan> cached = plans_[nchw][nchw_output].Get(
        {batched.size(0), batched.size(1), batched.size(2), batched.size(3)},
        [&] { return MakePlan(batched.sizes(), batched_out, nchw, nchw_output); });
    const ShapePlan& plan = cached->OrItsUpgrade();
    if (plan.plan == nullptr) {
      // Waiting for its Winograd plan: ATen's convolution meanwhile (no
      // packed copy of the weight for these few calls).
      at::Tensor result = at::conv2d(batched, params_.weight, params_.bias, params_.stride,
                                     params_.padding, params_.dilation, params_.groups);
      out.copy_(unbatched ? result.squeeze(0) : result);
    } else if (plan.per_image) {
      const int64_t images = batched.size(0);
      const int64_t in_floats = src.numel() / images, out_floats = out.numel() / images;
      for (int64_t image = 0; image < images; ++image) {
        plan.plan->Execute(src.data_ptr<float>() + image * in_floats,
                           out.data_ptr<float>() + image * out_floats);
      }
    } else {
      plan.plan->Execute(src.data_ptr(), out.data_ptr());
    }
    if (residual && residual->defined()) out.add_(*residual);
  }

  // The tile ops::Winograd3x3 runs the convolution with for a result of
  // `batched_out` sizes, or 0 (ops::Winograd3x3::PreferredTile).
  int WinogradTile(const std::vector<int64_t>& batched_out) const {
    return winograd_shape_
               ? ops::Winograd3x3::PreferredTile(params_.weight.size(1), params_.weight.size(0),
                                                 batched_out[2], batched_out[3])
               : 0;
  }

  // Whether the convolution giving `batched_out` sizes runs as one
  // ops::StreamedLinear product: a 1 x 1 kernel without padding or groups
  // whose pixels (over the batch) are few enough for the weight's size,
  // into a result whose pixels are rows (channels-last, or one pixel an
  // image).
  bool Streamed(const std::vector<int64_t>& batched_out, bool nchw_output) const {
    const at::Tensor& w = params_.weight;
    const int64_t image_pixels = batched_out[2] * batched_out[3];
    return w.size(2) == 1 && w.size(3) == 1 && params_.groups == 1 && params_.padding[0] == 0 &&
           params_.padding[1] == 0 && (!nchw_output || image_pixels == 1) &&
           ops::StreamedLinear::Pays(batched_out[0] * image_pixels, w.numel()) &&
           ops::StreamedLinear::Available();
  }

  // The Streamed convolution of `batched` into `out`: each output pixel's
  // input pixel is a row of the product, read in place where its channels
  // are adjacent, else gathered into this thread's buffer.
  void ComputeStreamed(const at::Tensor& batched, const std::vector<int64_t>& batched_out,
                       const std::vector<int64_t>& out_sizes, bool nchw_output, at::Tensor& out) {
    const int64_t channels = batched.size(1);
    const int64_t pixels = batched_out[0] * batched_out[2] * batched_out[3];
    float* gathered =
        batched.stride(1) == 1
            ? nullptr
            : static_cast<float*>(onednn::ThreadScratchpad(pixels * channels * sizeof(float), 1));
    c10::SmallVector<const float*, 16> rows;
    const float* data = batched.data_ptr<float>();
    for (int64_t n = 0; n < batched_out[0]; ++n) {
      for (int64_t i = 0; i < batched_out[2]; ++i) {
        for (int64_t j = 0; j < batched_out[3]; ++j) {
          const float* pixel = data + n * batched.stride(0) +
                               i * params_.stride[0] * batched.stride(2) +
                               j * params_.stride[1] * batched.stride(3);
          if (gathered != nullptr) {
            float* row = gathered + static_cast<int64_t>(rows.size()) * channels;
            for (int64_t c = 0; c < channels; ++c) row[c] = pixel[c * batched.stride(1)];
            pixel = row;
          }
          rows.push_back(pixel);
        }
      }
    }
    at::native::resize_(
        out, out_sizes,
        nchw_output ? at::MemoryFormat::Contiguous : at::MemoryFormat::ChannelsLast);
    StreamedProduct().Run(rows.data(), pixels, out.data_ptr<float>(), params_.weight.size(0));
  }

  // The weight packed for ops::StreamedLinear (a 1 x 1 convolution's), at
  // the first product that takes it.
  const ops::StreamedLinear& StreamedProduct() {
    std::call_once(streamed_once_, [&] {
      const at::Tensor w = params_.weight.contiguous();
      streamed_.emplace(w.data_ptr<float>(),
                        params_.bias.defined() ? params_.bias.data_ptr<float>() : nullptr,
                        w.size(0), w.size(1));
    });
    return *streamed_;
  }

  // Whether the convolution of `batched` is one matrix-vector product per
  // image: a 1 x 1 kernel without padding or groups on a 1 x 1 image whose
  // channels are dense (as after a global pool: squeeze-and-excitation).
  bool OnePixel(const at::Tensor& batched) const {
    return params_.weight.size(2) == 1 && params_.weight.size(3) == 1 && params_.groups == 1 &&
           params_.padding[0] == 0 && params_.padding[1] == 0 && batched.size(2) == 1 &&
           batched.size(3) == 1 && batched.stride(1) == 1 &&
           (batched.size(0) == 1 || batched.stride(0) == batched.size(1));
  }

  // Whether the convolution of `batched` is a depthwise 1D one (height 1,
  // one filter per channel) that ops/conv/depthwise.h computes.
  bool DepthwiseOneDimensional(const at::Tensor& batched) const {
    const at::Tensor& w = params_.weight;
    return params_.groups == batched.size(1) && w.size(0) == params_.groups && w.size(1) == 1 &&
           w.size(2) == 1 && batched.size(2) == 1 && params_.stride[0] == 1 &&
           params_.dilation[0] == 1 && params_.padding[0] == 0 && w.is_contiguous() &&
           (!params_.bias.defined() || params_.bias.is_contiguous());
  }

  // Whether the convolution of `batched` is a dense 1D one (height 1) from
  // fewer than kFirstLayerChannels input channels with few enough taps for
  // ops/conv/few_channel.h (a model's first layer on a waveform).
  bool FewChannelOneDimensional(const at::Tensor& batched) const {
    const at::Tensor& w = params_.weight;
    return params_.groups == 1 && batched.size(1) < kFirstLayerChannels && w.size(2) == 1 &&
           batched.size(2) == 1 && params_.padding[0] == 0 &&
           w.size(1) * w.size(3) <= ops::kFewChannelConv1dMaxTaps && w.is_contiguous() &&
           (!params_.bias.defined() || params_.bias.is_contiguous());
  }

  // Writes the convolution of the NCW signals `batched` into `out` (NCW,
  // resized to `out_sizes`) by a 1D loop (depthwise.h, few_channel.h) if one takes the shape;
  // false if none does.
  bool OneDimensionalLoop(const at::Tensor& batched, const std::vector<int64_t>& out_sizes,
                          int64_t out_width, at::Tensor& out) const {
    const at::Tensor& w = params_.weight;
    const float* bias = params_.bias.defined() ? params_.bias.data_ptr<float>() : nullptr;
    if (DepthwiseOneDimensional(batched)) {
      at::native::resize_(out, out_sizes);
      const ops::DepthwiseConv1dShape shape = {
          batched.size(0),   batched.size(1),     batched.size(3),    w.size(3),
          params_.stride[1], params_.dilation[1], params_.padding[1], out_width};
      ops::DepthwiseConv1d(shape, batched.data_ptr<float>(), w.data_ptr<float>(), bias,
                           out.data_ptr<float>());
      return true;
    }
    if (FewChannelOneDimensional(batched)) {
      at::native::resize_(out, out_sizes);
      const ops::FewChannelConv1dShape shape = {
          batched.size(0),   batched.size(1),     batched.size(3),    w.size(0), w.size(3),
          params_.stride[1], params_.dilation[1], params_.padding[1], out_width};
      ops::FewChannelConv1d(shape, batched.data_ptr<float>(), w.data_ptr<float>(), bias,
                            out.data_ptr<float>());
      return true;
    }
    return false;
  }

  // One input shape's convolution: a oneDNN primitive between reorders,
  // run on the whole batch at once or image by image; or, until the
  // background work gives it its Winograd plan (AwaitWinograd), none:
  // ATen's convolution.
  struct WinogradUpgrade;
  struct ShapePlan {
    std::unique_ptr<onednn::ReorderedPlan> plan;  // null: ATen's, until upgraded
    bool per_image = false;
    std::shared_ptr<WinogradUpgrade> upgrade;  // null: never upgraded
    const ShapePlan& OrItsUpgrade() const;
  };
  struct WinogradUpgrade {
    std::unique_ptr<ShapePlan> plan;  // written before `ready` is published
    std::atomic<const ShapePlan*> ready{nullptr};
  };
  // A shape whose direct plan waits for its Winograd one.
  struct AwaitingShape {
    std::vector<int64_t> in, out;
    bool nchw_input, nchw_output;
    std::shared_ptr<WinogradUpgrade> upgrade;
  };

  // The plan of a new input shape (see DirectPlan and WinogradPlan).
  //
  // oneDNN's Winograd kernels take the weight in a layout whose blocking
  // depends on the input's shape (batch and image size), made by oneDNN's
  // slow reorder: packing it for each shape took 0.5-1.5 s and 150 MB per
  // batch size on resnet18. So the weight has at most kMaxWinogradLayouts
  // of them, and no call waits long for one to be packed: a shape whose
  // layout is packed runs Winograd at once (on the whole batch, or image by
  // image where one image's layout is the packed one), one whose layout is
  // not runs the direct kernel; before the weight has a layout, a shape
  // packs it at once if it is small (kMinBackgroundPackBytes), else runs
  // ATen's convolution (as PyTorch's Static Runtime does, at its speed:
  // packing the direct kernel's copy too would keep another copy of the
  // weight for a few calls) while the background work packs the layout
  // and swaps the shape's plan for Winograd's.
  std::unique_ptr<ShapePlan> MakePlan(at::IntArrayRef in, const std::vector<int64_t>& out,
                                      bool nchw_input, bool nchw_output) {
    if (winograd_shape_ && out[2] * out[3] >= kMinWinogradOutputs && AllTapsLive(in, out)) {
      size_t copy_bytes = 0;
      if (auto plan =
              WinogradPlan(in, out, nchw_input, nchw_output, /*may_pack=*/false, &copy_bytes)) {
        return plan;
      }
      if (copy_bytes > 0 && copy_bytes < kMinBackgroundPackBytes) {
        // Packed at once: a few milliseconds at most.
        if (auto plan = WinogradPlan(in, out, nchw_input, nchw_output, /*may_pack=*/true)) {
          return plan;
        }
      } else if (copy_bytes > 0) {
        auto awaiting = std::make_unique<ShapePlan>();
        if (AwaitWinograd(in, out, nchw_input, nchw_output, *awaiting)) return awaiting;
      }
    }
    return DirectPlan(in, out, nchw_input, nchw_output);
  }

  // Whether every tap of the kernel reads the input for some output at
  // these sizes (else DirectPlan leaves taps out).
  bool AllTapsLive(at::IntArrayRef in, const std::vector<int64_t>& out) const {
    for (int i = 0; i < 2; ++i) {
      const TapRange live = LiveTaps(in[2 + i], out[2 + i], params_.weight.size(2 + i),
                                     params_.stride[i], params_.dilation[i], params_.padding[i]);
      if (live.first != 0 || live.last != params_.weight.size(2 + i) - 1) return false;
    }
    return true;
  }

  // oneDNN's Winograd convolution of this shape in a layout of the weight
  // that is packed (or, where `may_pack`, that may be packed now: fewer
  // than kMaxWinogradLayouts are), on the whole batch or image by image;
  // null when there is none. `copy_bytes`, if given, is set to the size of
  // the weight's copy in the layout the whole batch wants (0 where oneDNN
  // has no Winograd kernel for the shape on this CPU).
  std::unique_ptr<ShapePlan> WinogradPlan(at::IntArrayRef in, const std::vector<int64_t>& out,
                                          bool nchw_input, bool nchw_output, bool may_pack,
                                          size_t* copy_bytes = nullptr) {
    const memory::dims padding_l = {params_.padding[0], params_.padding[1]};
    for (const int64_t images :
         in[0] == 1 ? std::vector<int64_t>{1} : std::vector<int64_t>{in[0], 1}) {
      const auto layout = [&](int64_t channels, int64_t height, int64_t width, bool nchw) {
        return onednn::FloatDesc({images, channels, height, width},
                                 nchw ? memory::format_tag::nchw : memory::format_tag::nhwc);
      };
      try {
        const auto pd =
            Describe(params_.weight, padding_l, dnnl::algorithm::convolution_winograd,
                     onednn::FloatDesc({images, in[1], in[2], in[3]}, memory::format_tag::any),
                     onednn::FloatDesc({images, out[1], out[2], out[3]}, memory::format_tag::any));
        if (copy_bytes != nullptr && images == in[0]) *copy_bytes = pd.weights_desc().get_size();
        std::optional<memory> weights =
            may_pack ? packed_.GetWithinKindLimit(pd.weights_desc(), kMaxWinogradLayouts)
                     : packed_.GetIfPacked(pd.weights_desc());
        if (!weights) continue;
        std::unique_ptr<ShapePlan> plan =
            PlanOf(pd, *std::move(weights), layout(in[1], in[2], in[3], nchw_input),
                   layout(out[1], out[2], out[3], nchw_output));
        plan->per_image = images != in[0];
        return plan;
      } catch (const dnnl::error&) {
        // oneDNN has no Winograd kernel for this shape on this CPU.
      }
    }
    return nullptr;
  }

  // Registers `plan` (of this shape, running ATen's convolution) for an
  // upgrade to Winograd, and starts the background work that packs the
  // weight's layout; false when that work is done (the shape's layout is
  // not the packed one: it runs the direct kernel).
  bool AwaitWinograd(at::IntArrayRef in, const std::vector<int64_t>& out, bool nchw_input,
                     bool nchw_output, ShapePlan& plan) {
    absl::MutexLock lock(&winograd_mutex_);
    if (winograd_done_) return false;
    plan.upgrade = std::make_shared<WinogradUpgrade>();
    awaiting_.push_back({in.vec(), out, nchw_input, nchw_output, plan.upgrade});
    if (!winograd_started_) {
      winograd_started_ = true;
      PostBackgroundWork([kernel = shared_from_this()] { kernel->UpgradeAwaitingShapes(); });
    }
    return true;
  }

  // The background work: packs the layout the first awaiting shape wants,
  // and gives every awaiting shape its Winograd plan in it, or where none
  // runs in it, its direct plan.
  void UpgradeAwaitingShapes() {
    size_t done = 0;
    while (true) {
      AwaitingShape shape;
      {
        absl::MutexLock lock(&winograd_mutex_);
        if (done == awaiting_.size()) {
          winograd_done_ = true;
          awaiting_.clear();
          return;
        }
        shape = awaiting_[done++];
      }
      try {
        std::unique_ptr<ShapePlan> plan = WinogradPlan(shape.in, shape.out, shape.nchw_input,
                                                       shape.nchw_output, /*may_pack=*/true);
        if (plan == nullptr) {
          plan = DirectPlan(shape.in, shape.out, shape.nchw_input, shape.nchw_output);
        }
        shape.upgrade->plan = std::move(plan);
        shape.upgrade->ready.store(shape.upgrade->plan.get(), std::memory_order_release);
      } catch (const std::exception& e) {
        // (Out of memory for the layout, say: the shape stays on ATen's.)
        LOG(WARNING) << "conv2d_fused: no oneDNN plan: " << e.what();
      }
    }
  }

  // The convolution `pd` describes with the weight packed as `weights`
  // (on the layouts it chose), between reorders from the caller's `input`
  // layout and to its `result` layout where they differ.
  std::unique_ptr<ShapePlan> PlanOf(const dnnl::convolution_forward::primitive_desc& pd,
                                    memory weights, const memory::desc& input,
                                    const memory::desc& result) const {
    auto plan = std::make_unique<ShapePlan>();
    plan->plan = onednn::MakeWeightedPlan<dnnl::convolution_forward>(pd, std::move(weights),
                                                                     params_.bias, input, result);
    return plan;
  }

  // A convolution without Winograd on the layouts its kernel wants, with
  // reorders from the input's layout (NHWC or NCHW) and to the result's
  // (NHWC or NCHW) where they differ: NHWC for the direct kernel; the
  // blocked layout for the direct kernel of a few-channel NCHW image (a
  // model's first layer) and some others (below).
  std::unique_ptr<ShapePlan> DirectPlan(at::IntArrayRef in, const std::vector<int64_t>& out,
                                        bool nchw_input, bool nchw_output) {
    // Taps that only ever read padding are left out (the weight is finite,
    // so they add only zeros), the padding cut to the first live tap.
    TapRange live[2];
    bool all_live = true, trimmable = true;
    for (int i = 0; i < 2; ++i) {
      live[i] = LiveTaps(in[2 + i], out[2 + i], params_.weight.size(2 + i), params_.stride[i],
                         params_.dilation[i], params_.padding[i]);
      all_live = all_live && live[i].first == 0 && live[i].last == params_.weight.size(2 + i) - 1;
      trimmable = trimmable && params_.padding[i] >= live[i].first * params_.dilation[i];
    }
    const TrimmedWeight* trimmed = !all_live && trimmable ? Trimmed(live) : nullptr;
    const at::Tensor& w = trimmed != nullptr ? trimmed->weight : params_.weight;
    onednn::PackedWeights& packed = trimmed != nullptr ? *trimmed->packed : packed_;
    memory::dims padding_l(2);
    for (int i = 0; i < 2; ++i) {
      padding_l[i] =
          params_.padding[i] - (trimmed != nullptr ? live[i].first : 0) * params_.dilation[i];
    }
    const memory::desc src =
        onednn::FloatDesc({in[0], in[1], in[2], in[3]}, memory::format_tag::nhwc);
    const memory::desc input =
        nchw_input ? onednn::FloatDesc({in[0], in[1], in[2], in[3]}, memory::format_tag::nchw)
                   : src;
    const memory::desc dst =
        onednn::FloatDesc({out[0], out[1], out[2], out[3]}, memory::format_tag::nhwc);
    const memory::desc result =
        nchw_output ? onednn::FloatDesc({out[0], out[1], out[2], out[3]}, memory::format_tag::nchw)
                    : dst;
    const auto describe = [&](dnnl::algorithm algorithm, const memory::desc& src_layout,
                              const memory::desc& dst_layout) {
      return Describe(w, padding_l, algorithm, src_layout, dst_layout);
    };
    // The convolution `pd` describes, between reorders from the input and
    // to the result where they differ.
    const auto reordered = [&](const dnnl::convolution_forward::primitive_desc& pd) {
      return PlanOf(pd, packed.Get(pd.weights_desc()), input, result);
    };
    // First-layer kernels read NCHW only for some shapes; oneDNN refuses
    // the others (which run the direct kernel on NHWC). Its GEMM-based
    // kernel ("gemm:jit"), which it offers from NCHW to NCHW, is not one of
    // them: the direct kernel into channel blocks, reordered to NCHW, takes
    // half its time (a 7x7/2 stem on 224x224: 1.3 against 2.4 ms on
    // AVX-512, 2.2 against 3.4 on AVX2).
    const memory::desc any_dst = onednn::FloatDesc(dst.dims(), memory::format_tag::any);
    // A pointwise 1D convolution (height 1, width 1) between NCW
    // activations: one matrix product per image on those layouts (oneDNN's
    // GEMM-based kernel), as reordering both sides of a long 1D signal costs
    // more than the product.
    if (nchw_input && nchw_output && in[2] == 1 && w.size(2) == 1 && w.size(3) == 1 &&
        params_.groups == 1 && params_.stride[1] == 1 && params_.padding[1] == 0) {
      try {
        const auto pd = describe(dnnl::algorithm::convolution_direct, input, result);
        if (pd.src_desc() == input && pd.dst_desc() == result) return reordered(pd);
      } catch (const dnnl::error&) {
      }
    }
    if (nchw_input && in[1] < kFirstLayerChannels && params_.groups == 1) {
      for (const memory::desc& conv_dst : {result, dst, any_dst}) {
        try {
          const auto pd = describe(dnnl::algorithm::convolution_direct, input, conv_dst);
          const std::string impl = pd.impl_info_str();
          if (pd.src_desc() == input && impl.rfind("jit:", 0) == 0) {
            return reordered(pd);
          }
        } catch (const dnnl::error&) {
        }
      }
    }
    // The direct kernel on channel blocks of the ISA's vector width (nCw16c
    // on AVX-512, nCw8c on AVX2; reordered from and to the activations'
    // layout), as ATen's own oneDNN convolution runs them, for
    //   - 1D convolutions (height 1) of 16 or more input channels: 10-15%
    //     faster than the NWC kernel on AVX-512 (brgconv), 25% on AVX2 (AMD
    //     Zen);
    //   - on AVX2, dense 2D convolutions of 16 or more input channels with
    //     more than one tap on an input of kMinBlockedAvx2InputFloats or
    //     more (several times the L2 cache), where oneDNN's NHWC kernel is
    //     about 2-2.5x slower than its nChw8c one (AMD Zen 3: a 3x3
    //     256-channel convolution on 50x63, 127 against 51 ms; 64 channels
    //     on 112x112, 30-41 against 16-17 ms; a batch of 100 256-channel
    //     14x14 maps, Mask R-CNN's mask head, 757 against 506 ms); on
    //     smaller inputs neither wins clearly (measured at 14x14 to 56x56).
    // The direct kernel on `tag` blocks, if oneDNN's choice there is `impl`.
    const auto blocked = [&](memory::format_tag tag,
                             const char* impl) -> std::unique_ptr<ShapePlan> {
      try {
        const auto pd =
            describe(dnnl::algorithm::convolution_direct, onednn::FloatDesc(src.dims(), tag),
                     onednn::FloatDesc(dst.dims(), tag));
        if (pd.impl_info_str() == std::string(impl)) return reordered(pd);
      } catch (const dnnl::error&) {
      }
      return nullptr;
    };
    const bool dense = params_.groups == 1 && in[1] >= kFirstLayerChannels;
    if (dense && in[2] == 1 && w.size(2) == 1) {
      if (auto plan = blocked(memory::format_tag::nChw16c, "jit:avx512_core")) return plan;
      if (auto plan = blocked(memory::format_tag::nChw8c, "jit:avx2")) return plan;
    }
    const auto nhwc = describe(dnnl::algorithm::convolution_direct, src, dst);
    if (dense && w.size(2) * w.size(3) > 1 &&
        in[0] * in[1] * in[2] * in[3] >= kMinBlockedAvx2InputFloats &&
        nhwc.impl_info_str() == std::string("jit:avx2")) {
      if (auto plan = blocked(memory::format_tag::nChw8c, "jit:avx2")) return plan;
    }
    return reordered(nhwc);
  }

  // The regions of one input shape: the outputs' intervals along rows and
  // columns; none when the shape is computed whole.
  struct Regions {
    std::vector<Interval> rows, columns;
  };
  Regions RegionsOf(at::IntArrayRef in, const std::vector<int64_t>& out,
                    double multiply_adds) const {
    const at::Tensor& w = params_.weight;
    Regions regions = {
        LiveIntervals(in[2], out[2], w.size(2), params_.dilation[0], params_.padding[0]),
        LiveIntervals(in[3], out[3], w.size(3), params_.dilation[1], params_.padding[1])};
    const double dead_share =
        1 - LiveShare(regions.rows, w.size(2)) * LiveShare(regions.columns, w.size(3));
    // Where every output reads through the same taps, MakePlan's trimmed
    // weight does it without copies.
    if ((regions.rows.size() == 1 && regions.columns.size() == 1) ||
        dead_share < kMinDeadShareToSplit ||
        dead_share * multiply_adds < kMinDeadMultiplyAddsToSplit || !Im2colShape(in, out)) {
      return {};
    }
    return regions;
  }

  // Writes the convolution of `batched` (biased, without residual or
  // activation) into `out` region by region (see kMinDeadShareToSplit), or
  // returns false when the shape is not worth it.
  bool ComputeByRegions(const at::Tensor& batched, const std::vector<int64_t>& batched_out,
                        bool unbatched, at::Tensor& out) {
    const double multiply_adds = static_cast<double>(batched_out[0]) * batched_out[1] *
                                 batched_out[2] * batched_out[3] *
                                 (params_.weight.numel() / params_.weight.size(0));
    if (params_.stride[0] != 1 || params_.stride[1] != 1 ||
        multiply_adds < kMinDeadMultiplyAddsToSplit) {
      return false;
    }
    const std::shared_ptr<const Regions> held = regions_by_shape_.Get(
        {batched.size(0), batched.size(1), batched.size(2), batched.size(3)}, [&] {
          return std::make_unique<Regions>(RegionsOf(batched.sizes(), batched_out, multiply_adds));
        });
    const Regions& regions = *held;
    if (regions.rows.empty()) return false;
    if (unbatched) {
      at::native::resize_(out, {batched_out[1], batched_out[2], batched_out[3]});
    } else {
      at::native::resize_(out, batched_out,
                          params_.channels_last_output ? at::MemoryFormat::ChannelsLast
                                                       : at::MemoryFormat::Contiguous);
    }
    const at::Tensor out4 = unbatched ? out.unsqueeze(0) : out;
    at::Tensor result = at::empty({0}, at::kFloat);
    for (const Interval& row : regions.rows) {
      for (const Interval& column : regions.columns) {
        at::Tensor region = out4.slice(2, row.begin, row.end).slice(3, column.begin, column.end);
        if (row.taps.first > row.taps.last || column.taps.first > column.taps.last) {
          // Only padding: the bias.
          if (params_.bias.defined()) {
            region.copy_(params_.bias.view({1, -1, 1, 1}).expand_as(region));
          } else {
            region.zero_();
          }
          continue;
        }
        const at::Tensor window =
            batched
                .slice(2, row.begin - params_.padding[0] + row.taps.first * params_.dilation[0],
                       row.end - params_.padding[0] + row.taps.last * params_.dilation[0])
                .slice(3,
                       column.begin - params_.padding[1] + column.taps.first * params_.dilation[1],
                       column.end - params_.padding[1] + column.taps.last * params_.dilation[1]);
        RegionKernel({row.taps.first, row.taps.last, column.taps.first, column.taps.last})
            ->Compute(window, c10::nullopt,
                      {region.size(0), region.size(1), region.size(2), region.size(3)}, result);
        region.copy_(result);
      }
    }
    return true;
  }

  // oneDNN's convolution of weight `w` (its taps starting `padding_l`
  // before the input; the padding on the far side is what the result's size
  // leaves: rows and columns past the last window are never read) from the
  // `src` to the `dst` layout, weights in the layout it wants.
  dnnl::convolution_forward::primitive_desc Describe(const at::Tensor& w,
                                                     const memory::dims& padding_l,
                                                     dnnl::algorithm algorithm,
                                                     const memory::desc& src,
                                                     const memory::desc& dst) const {
    const memory::dims in = src.dims(), out = dst.dims();
    memory::dims padding_r(2);
    for (int i = 0; i < 2; ++i) {
      padding_r[i] = (out[2 + i] - 1) * params_.stride[i] +
                     params_.dilation[i] * (w.size(2 + i) - 1) + 1 - in[2 + i] - padding_l[i];
    }
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    return dnnl::convolution_forward::primitive_desc(
        dnnl::convolution_forward::desc(
            dnnl::prop_kind::forward_inference, algorithm, src,
            onednn::FloatDesc(WeightDims(w, params_.groups), memory::format_tag::any),
            params_.bias.defined() ? onednn::FloatDesc({w.size(0)}, memory::format_tag::x)
                                   : memory::desc(),
            dst, {params_.stride[0], params_.stride[1]},
            {params_.dilation[0] - 1, params_.dilation[1] - 1}, padding_l, padding_r),
        attr, onednn::CpuEngine());
  }

  // Whether oneDNN computes this shape's convolution (NHWC) with its im2col
  // GEMM, which multiplies the padding too, where its JIT kernels skip it
  // (on AVX2, for dilations above 2 with padding).
  bool Im2colShape(at::IntArrayRef in, const std::vector<int64_t>& out) const {
    try {
      const auto pd =
          Describe(params_.weight, {params_.padding[0], params_.padding[1]},
                   dnnl::algorithm::convolution_direct,
                   onednn::FloatDesc({in[0], in[1], in[2], in[3]}, memory::format_tag::nhwc),
                   onednn::FloatDesc({out[0], out[1], out[2], out[3]}, memory::format_tag::nhwc));
      return std::string(pd.impl_info_str()).find("gemm") != std::string::npos;
    } catch (const dnnl::error&) {
      return false;
    }
  }

  // The kernel of the taps `window` (rows first..last, columns first..last)
  // without padding, made once per window and kept for this kernel's
  // lifetime.
  Conv2dKernel* RegionKernel(const std::array<int64_t, 4>& window) {
    absl::MutexLock lock(&windows_mutex_);
    std::shared_ptr<Conv2dKernel>& slot = regions_[window];
    if (slot == nullptr) {
      const KernelCacheScope scope(account_);  // its caches are this node's
      ConvParams params = params_;
      params.weight = WeightTaps(window);
      params.padding = {0, 0};
      params.activation = ops::FusedActivation{};
      params.channels_last_output = true;
      slot = std::make_shared<Conv2dKernel>(std::move(params));
    }
    return slot.get();
  }

  // The weight's taps in `window` (rows first..last, columns first..last),
  // contiguous.
  at::Tensor WeightTaps(const std::array<int64_t, 4>& window) const {
    return params_.weight.slice(2, window[0], window[1] + 1)
        .slice(3, window[2], window[3] + 1)
        .contiguous();
  }

  // The weight without the taps outside `live` (rows, columns), packed
  // apart; made once per window and kept for the kernel's lifetime.
  struct TrimmedWeight {
    at::Tensor weight;
    std::unique_ptr<onednn::PackedWeights> packed;
  };
  const TrimmedWeight* Trimmed(const TapRange (&live)[2]) {
    absl::MutexLock lock(&windows_mutex_);
    std::unique_ptr<TrimmedWeight>& slot =
        trimmed_[{live[0].first, live[0].last, live[1].first, live[1].last}];
    if (slot == nullptr) {
      const KernelCacheScope scope(account_);
      slot = std::make_unique<TrimmedWeight>();
      slot->weight = WeightTaps({live[0].first, live[0].last, live[1].first, live[1].last});
      slot->packed = std::make_unique<onednn::PackedWeights>(
          PlainWeightDesc(slot->weight, params_.groups), slot->weight.data_ptr());
    }
    return slot.get();
  }

  at::Tensor Reference(const at::Tensor& input, const c10::optional<at::Tensor>& residual) const {
    return ops::Conv2dFusedReference(input, params_.weight, params_.bias, params_.stride,
                                     params_.padding, params_.dilation, params_.groups, residual,
                                     params_.activation);
  }

  // What this node's caches report to (execution/kernel_caches.h), also for
  // those made after the kernel (of its tap windows).
  const std::shared_ptr<KernelCacheAccount> account_;
  const ConvParams params_;
  onednn::PackedWeights packed_;
  const bool finite_weight_;   // else every call runs ATen's convolution
  absl::Mutex windows_mutex_;  // guards the kernels and weights of tap windows
  absl::flat_hash_map<std::array<int64_t, 4>, std::unique_ptr<TrimmedWeight>> trimmed_
      ABSL_GUARDED_BY(windows_mutex_);
  absl::flat_hash_map<std::array<int64_t, 4>, std::shared_ptr<Conv2dKernel>> regions_
      ABSL_GUARDED_BY(windows_mutex_);
  onednn::PlanCache<ShapePlan> plans_[2][2];     // [NCHW input][NCHW result]
  onednn::PlanCache<Regions> regions_by_shape_;  // RegionsOf each input shape
  std::once_flag streamed_once_;
  std::optional<ops::StreamedLinear> streamed_;  // StreamedProduct: Streamed and OnePixel shapes
  const bool winograd_shape_;                    // 3 x 3, stride 1, dilation 1, one group
  // The shapes waiting for the background work's Winograd plans (see
  // MakePlan): whether it started, and whether it is done.
  absl::Mutex winograd_mutex_;
  std::vector<AwaitingShape> awaiting_ ABSL_GUARDED_BY(winograd_mutex_);
  bool winograd_started_ ABSL_GUARDED_BY(winograd_mutex_) = false;
  bool winograd_done_ ABSL_GUARDED_BY(winograd_mutex_) = false;
  ops::Winograd3x3ByTile winograd_;  // each tile's kernel made at its first call
};

const Conv2dKernel::ShapePlan& Conv2dKernel::ShapePlan::OrItsUpgrade() const {
  if (upgrade != nullptr) {
    if (const ShapePlan* winograd = upgrade->ready.load(std::memory_order_acquire)) {
      return *winograd;
    }
  }
  return *this;
}

KernelOffer MakeConv2dKernel(const torch::jit::Node* node) {
  std::optional<onednn::FrozenParams> frozen = onednn::ReadFrozenParams(node, 4);
  if (!frozen) return Decline();
  // stride, padding, dilation, groups (input 7, the residual, is a run-time value)
  std::vector<c10::IValue> constants;
  for (size_t i = 3; i < 7; ++i) {
    c10::optional<c10::IValue> constant = torch::jit::toIValue(node->input(i));
    if (!constant) return Decline();
    constants.push_back(*std::move(constant));
  }
  ConvParams params;
  static_cast<onednn::FrozenParams&>(params) = *std::move(frozen);
  params.stride = Pair(constants[0].toIntVector());
  params.padding = Pair(constants[1].toIntVector());
  params.dilation = Pair(constants[2].toIntVector());
  params.groups = constants[3].toInt();
  for (const auto* list : {&params.stride, &params.padding, &params.dilation}) {
    if (list->size() != 2) return Decline();
  }
  if (params.stride[0] < 1 || params.stride[1] < 1 || params.dilation[0] < 1 ||
      params.dilation[1] < 1 || params.padding[0] < 0 || params.padding[1] < 0 ||
      params.groups < 1 || params.weight.size(0) % params.groups != 0) {
    return Decline();  // ATen reports these
  }
  params.channels_last_output = MayBeChannelsLast(node->output());
  auto kernel = std::make_shared<Conv2dKernel>(std::move(params));
  return [kernel](NodeIO& io) { (*kernel)(io); };
}

}  // namespace

void RegisterConv2dKernels(KernelRegistry& registry) {
  registry.Add({KernelOp::Overload("static_runtime::conv2d_fused", ""), NodeKind::kOutVariant,
                MakeConv2dKernel, ops::Conv2dFusedErrorBound});
}

}  // namespace static_runtime
