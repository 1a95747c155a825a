// aten::conv3d with frozen weights (video networks, volumetric models) as an
// out variant: oneDNN's 3D convolution on weights re-laid out once into the
// blocked format its kernel wants (ATen re-lays them out on every call),
// shared by every thread and input shape; from and to contiguous NCDHW
// tensors through reorders in per-thread buffers. Inputs the kernel does
// not take (other dtypes, other layouts, mismatched channels, empty results,
// a shape oneDNN refuses) run ATen's op, with its result or its error; so do
// weights holding inf or NaN (whether a tap on the padding adds 0 x inf
// depends on the implementation oneDNN picks, as for conv2d_fused).
//
// A (1, 3, 3) convolution of stride 1 (the spatial half of R(2+1)D's
// factored convolutions) is a 2D convolution of every frame: where
// ops::Winograd3x3 is preferred (AVX2 CPUs, 64 channels or more) it runs
// on the frames as one batch, channels-last, between oneDNN's reorders from
// and to NCDHW through per-thread buffers.
//
// Numerics: oneDNN sums each output's (C / groups) * kd * kh * kw products in
// another order than ATen may (Winograd: of transformed tiles); the bound it
// declares is Conv3dErrorBound (ops/conv/conv_error_bounds.h).
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ATen/ATen.h"
#include "ops/conv/conv_error_bounds.h"
#include "ops/conv/winograd_3x3.h"
#include "ops/core/out_variant.h"
#include "ops/core/registry.h"
#include "ops/onednn/onednn.h"
#include "torch/csrc/jit/ir/constants.h"

namespace static_runtime {
namespace {

using dnnl::memory;

struct Conv3dParams {
  at::Tensor weight;  // [K, C / groups, kd, kh, kw], contiguous, finite
  at::Tensor bias;    // [K], contiguous, or undefined
  std::vector<int64_t> stride, padding, dilation;  // three values each
  int64_t groups = 1;
};

at::Tensor Reference(NodeIO& io, const Conv3dParams& params) {
  return at::conv3d(io.Input(0).toTensor(), params.weight,
                    params.bias.defined() ? c10::optional<at::Tensor>(params.bias) : c10::nullopt,
                    params.stride, params.padding, params.dilation, params.groups);
}

class Conv3dKernel {
 public:
  explicit Conv3dKernel(Conv3dParams params)
      : params_(std::move(params)),
        packed_(PlainWeightDesc(params_), params_.weight.data_ptr()),
        frames_winograd_(ops::WinogradShape(params_.weight.sizes(), params_.stride,
                                            params_.dilation, params_.groups) &&
                         params_.padding[0] == 0),
        // [K, C, 1, 3, 3] is laid out as the [K, C, 3, 3] the kernel takes.
        winograd_(params_.weight.data_ptr<float>(),
                  params_.bias.defined() ? params_.bias.data_ptr<float>() : nullptr,
                  params_.weight.size(0), params_.weight.size(1)) {}

  void operator()(NodeIO& io) {
    const at::Tensor& input = TensorArg(io, 0);
    const std::vector<int64_t> out_sizes = OutputSizes(input);
    if (out_sizes.empty()) {
      io.Output(0) = Reference(io, params_);
      return;
    }
    // The input and result as [N, C, D, H, W].
    std::vector<int64_t> in5 = input.sizes().vec(), out5 = out_sizes;
    if (input.dim() == 4) {  // unbatched: a batch of one
      in5.insert(in5.begin(), 1);
      out5.insert(out5.begin(), 1);
    }
    const int tile = frames_winograd_
                         ? ops::Winograd3x3::PreferredTile(params_.weight.size(1),
                                                           params_.weight.size(0), out5[3], out5[4])
                         : 0;
    if (tile != 0) {
      RunFrames(input, in5, out5, tile, ReusableOrNewOutput(io, 0, at::kFloat), out_sizes);
      return;
    }
    // The channels are the weight's (checked), so the key leaves them out.
    const auto held = plans_.Get({in5[0], in5[2], in5[3], in5[4]}, [&] {
      return std::make_unique<std::unique_ptr<onednn::ReorderedPlan>>(MakePlan(in5, out5));
    });
    const std::unique_ptr<onednn::ReorderedPlan>& plan = *held;  // (held while it runs)
    if (plan == nullptr) {
      io.Output(0) = Reference(io, params_);
      return;
    }
    at::Tensor& out = ReusableOrNewOutput(io, 0, at::kFloat);
    out.resize_(out_sizes);
    plan->Execute(input.data_ptr(), out.data_ptr());
  }

 private:
  // The convolution of the [N, C, D, H, W] `input` (of sizes `in5`) as a 2D
  // one of its N * D frames by ops::Winograd3x3 of `tile`, into `out`
  // (resized to `out_sizes`; `out5` its sizes as [N, K, D, OH, OW]).
  void RunFrames(const at::Tensor& input, const std::vector<int64_t>& in5,
                 const std::vector<int64_t>& out5, int tile, at::Tensor& out,
                 const std::vector<int64_t>& out_sizes) {
    const std::shared_ptr<const FramesPlan> plan =
        frames_plans_.Get({in5[0], in5[2], in5[3], in5[4]}, [&] {
          auto made = std::make_unique<FramesPlan>();
          made->to_frames = onednn::MakeReorder(onednn::FloatDesc(in5, memory::format_tag::ncdhw),
                                                onednn::FloatDesc(in5, memory::format_tag::ndhwc));
          made->from_frames =
              onednn::MakeReorder(onednn::FloatDesc(out5, memory::format_tag::ndhwc),
                                  onednn::FloatDesc(out5, memory::format_tag::ncdhw));
          return made;
        });
    // This thread's buffers: the input and the result channels-last.
    void* frames = onednn::ThreadScratchpad(c10::multiply_integers(in5) * sizeof(float), 1);
    void* results = onednn::ThreadScratchpad(c10::multiply_integers(out5) * sizeof(float), 2);
    plan->to_frames->Execute({{DNNL_ARG_FROM, input.data_ptr()}, {DNNL_ARG_TO, frames}});
    winograd_.ForTile(tile).Run(
        {in5[0] * in5[2], in5[3], in5[4], params_.padding[1], params_.padding[2], out5[3], out5[4]},
        static_cast<const float*>(frames), static_cast<float*>(results));
    out.resize_(out_sizes);
    plan->from_frames->Execute({{DNNL_ARG_FROM, results}, {DNNL_ARG_TO, out.data_ptr()}});
  }

  // Reorders from NCDHW to channels-last and back, for one input shape.
  struct FramesPlan {
    std::unique_ptr<onednn::Plan> to_frames, from_frames;
  };

  // oneDNN's dims of the weight: [K, C, kd, kh, kw], or grouped [groups,
  // K / groups, C / groups, kd, kh, kw].
  static memory::desc PlainWeightDesc(const Conv3dParams& params) {
    const at::Tensor& w = params.weight;
    const int64_t g = params.groups;
    return g == 1
               ? onednn::FloatDesc({w.size(0), w.size(1), w.size(2), w.size(3), w.size(4)},
                                   memory::format_tag::oidhw)
               : onednn::FloatDesc({g, w.size(0) / g, w.size(1), w.size(2), w.size(3), w.size(4)},
                                   memory::format_tag::goidhw);
  }

  // The result's sizes ([N, K, OD, OH, OW] or unbatched [K, OD, OH, OW]), or
  // empty when the kernel does not take `input`.
  std::vector<int64_t> OutputSizes(const at::Tensor& input) const {
    const at::Tensor& w = params_.weight;
    if (input.scalar_type() != at::kFloat || (input.dim() != 5 && input.dim() != 4) ||
        !input.is_cpu() || input.numel() == 0 || input.is_neg() || input.is_conj() ||
        !input.is_contiguous()) {
      return {};
    }
    const int64_t channels = input.dim() - 4;  // the channel dimension
    if (input.size(channels) != w.size(1) * params_.groups) return {};
    std::vector<int64_t> sizes = input.sizes().vec();
    sizes[channels] = w.size(0);
    for (int i = 0; i < 3; ++i) {
      const int64_t extent = params_.dilation[i] * (w.size(2 + i) - 1) + 1;
      const int64_t padded = input.size(channels + 1 + i) + 2 * params_.padding[i];
      if (padded < extent) return {};
      sizes[channels + 1 + i] = (padded - extent) / params_.stride[i] + 1;
    }
    return sizes;
  }

  // oneDNN's convolution between NCDHW tensors of these sizes, on the layouts
  // it chose; null when oneDNN refuses the shape.
  std::unique_ptr<onednn::ReorderedPlan> MakePlan(const std::vector<int64_t>& in,
                                                  const std::vector<int64_t>& out) {
    const memory::desc src = onednn::FloatDesc(in, memory::format_tag::ncdhw);
    const memory::desc dst = onednn::FloatDesc(out, memory::format_tag::ncdhw);
    const memory::desc bias = params_.bias.defined()
                                  ? onednn::FloatDesc({out[1]}, memory::format_tag::x)
                                  : memory::desc();
    memory::dims dilation(3), padding_r(3);
    for (int i = 0; i < 3; ++i) {
      dilation[i] = params_.dilation[i] - 1;
      // What the result's size leaves of the padding on the far side.
      padding_r[i] = (out[2 + i] - 1) * params_.stride[i] +
                     params_.dilation[i] * (params_.weight.size(2 + i) - 1) + 1 - in[2 + i] -
                     params_.padding[i];
    }
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    try {
      const dnnl::convolution_forward::primitive_desc pd(
          dnnl::convolution_forward::desc(
              dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
              onednn::FloatDesc(src.dims(), memory::format_tag::any),
              onednn::FloatDesc(PlainWeightDesc(params_).dims(), memory::format_tag::any), bias,
              onednn::FloatDesc(dst.dims(), memory::format_tag::any), params_.stride, dilation,
              params_.padding, padding_r),
          attr, onednn::CpuEngine());
      return onednn::MakeWeightedPlan<dnnl::convolution_forward>(pd, packed_.Get(pd.weights_desc()),
                                                                 params_.bias, src, dst);
    } catch (const dnnl::error&) {
      return nullptr;
    }
  }

  const Conv3dParams params_;
  onednn::PackedWeights packed_;
  const bool frames_winograd_;       // (1, 3, 3), stride 1, no temporal padding: 2D frames
  ops::Winograd3x3ByTile winograd_;  // each tile's kernel made at its first call
  onednn::PlanCache<FramesPlan> frames_plans_;
  onednn::PlanCache<std::unique_ptr<onednn::ReorderedPlan>> plans_;
};

// The padding of the string overload (conv3d.padding) as ATen computes it:
// "valid" is none, "same" dilation * (k - 1) / 2 on each side where that
// total is even (ATen pads the input first otherwise, so the kernel
// declines).
std::optional<std::vector<int64_t>> StringPadding(const torch::jit::Value* value,
                                                  const at::Tensor& weight,
                                                  const std::vector<int64_t>& dilation) {
  const c10::optional<c10::IValue> constant = torch::jit::toIValue(value);
  if (!constant || !constant->isString()) return std::nullopt;
  const std::string& mode = constant->toStringRef();
  if (mode == "valid") return std::vector<int64_t>(3, 0);
  if (mode != "same") return std::nullopt;
  std::vector<int64_t> padding(3);
  for (int i = 0; i < 3; ++i) {
    const int64_t total = dilation[i] * (weight.size(2 + i) - 1);
    if (total % 2 != 0) return std::nullopt;
    padding[i] = total / 2;
  }
  return padding;
}

KernelOffer MakeConv3dKernel(const torch::jit::Node* node, bool string_padding) {
  std::optional<onednn::FrozenWeight> frozen = onednn::ReadFrozenWeight(node, 5);
  const c10::optional<c10::IValue> groups = torch::jit::toIValue(node->input(6));
  if (!frozen || !groups || !groups->isInt()) return Decline();
  Conv3dParams params;
  params.groups = groups->toInt();
  params.weight = std::move(frozen->weight);
  params.bias = std::move(frozen->bias);
  if (params.groups < 1 || params.weight.size(0) % params.groups != 0 ||
      (params.bias.defined() && params.bias.size(0) != params.weight.size(0)) ||
      !params.weight.isfinite().all().item<bool>()) {
    return Decline();  // ATen reports these, or computes them its way
  }
  auto stride = onednn::ConstantIntList(node->input(3), 3);
  auto dilation = onednn::ConstantIntList(node->input(5), 3);
  if (!stride || !dilation) return Decline();
  auto padding = string_padding ? StringPadding(node->input(4), params.weight, *dilation)
                                : onednn::ConstantIntList(node->input(4), 3);
  if (!padding) return Decline();
  for (int i = 0; i < 3; ++i) {
    if ((*stride)[i] < 1 || (*dilation)[i] < 1 || (*padding)[i] < 0) return Decline();
  }
  params.stride = *std::move(stride);
  params.padding = *std::move(padding);
  params.dilation = *std::move(dilation);
  auto kernel = std::make_shared<Conv3dKernel>(std::move(params));
  return [kernel](NodeIO& io) { (*kernel)(io); };
}

}  // namespace

void RegisterConvolution3dKernels(KernelRegistry& registry) {
  registry.Add({KernelOp::Overload("aten::conv3d", ""), NodeKind::kOutVariant,
                [](const torch::jit::Node* node) { return MakeConv3dKernel(node, false); },
                ops::Conv3dErrorBound});
  registry.Add({KernelOp::Overload("aten::conv3d", "padding"), NodeKind::kOutVariant,
                [](const torch::jit::Node* node) { return MakeConv3dKernel(node, true); },
                ops::Conv3dErrorBound});
}

}  // namespace static_runtime
