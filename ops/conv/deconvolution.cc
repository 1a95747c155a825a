// aten::conv_transpose1d and aten::conv_transpose2d with frozen weights
// (audio decoders, segmentation and generator upsampling) as out variants:
// oneDNN's deconvolution on weights re-laid out once into the blocked format
// its kernel wants (shared by every thread and input shape), from and to
// contiguous NC(H)W tensors through reorders in per-thread buffers. A 1D
// transposed convolution runs as a 2D one of height 1. Inputs the kernel does
// not take (other dtypes, other layouts, mismatched channels, empty results,
// a padding oneDNN refuses) run ATen's op, with its result or its error.
//
// Numerics: oneDNN sums each output's (C / groups) * kh * kw products in
// another order than ATen; the bound it declares is ConvTransposeErrorBound
// (ops/conv/conv_error_bounds.h).
#include <algorithm>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ATen/ATen.h"
#include "ops/conv/conv_error_bounds.h"
#include "ops/core/out_variant.h"
#include "ops/core/registry.h"
#include "ops/onednn/onednn.h"
#include "torch/csrc/jit/ir/constants.h"

namespace static_runtime {
namespace {

using dnnl::memory;

// The node's constants, as a 2D transposed convolution: a 1D one's weight
// [C, K / groups, kw] is [C, K / groups, 1, kw] and its hyper-parameters
// (height first) are stride 1, padding 0, output padding 0, dilation 1
// across the height.
struct DeconvParams {
  at::Tensor weight;  // [C, K / groups, kh, kw], contiguous
  at::Tensor bias;    // [K], contiguous, or undefined
  std::vector<int64_t> stride, padding, output_padding, dilation;
  int64_t groups = 1;
  int64_t spatial_dims = 2;  // of the node's signal: 1 or 2
};

at::Tensor Reference(NodeIO& io, int64_t spatial_dims) {
  const at::Tensor& input = io.Input(0).toTensor();
  const at::Tensor& weight = io.Input(1).toTensor();
  const c10::optional<at::Tensor> bias = io.Input(2).toOptional<at::Tensor>();
  const std::vector<int64_t> stride = io.Input(3).toIntVector(),
                             padding = io.Input(4).toIntVector(),
                             output_padding = io.Input(5).toIntVector(),
                             dilation = io.Input(7).toIntVector();
  const int64_t groups = io.Input(6).toInt();
  return spatial_dims == 1 ? at::conv_transpose1d(input, weight, bias, stride, padding,
                                                  output_padding, groups, dilation)
                           : at::conv_transpose2d(input, weight, bias, stride, padding,
                                                  output_padding, groups, dilation);
}

class DeconvolutionKernel {
 public:
  explicit DeconvolutionKernel(DeconvParams params)
      : params_(std::move(params)), packed_(PlainWeightDesc(params_), params_.weight.data_ptr()) {}

  void operator()(NodeIO& io) {
    const at::Tensor& input = TensorArg(io, 0);
    const std::vector<int64_t> out_sizes = OutputSizes(input);
    if (out_sizes.empty()) {
      io.Output(0) = Reference(io, params_.spatial_dims);
      return;
    }
    // The input and result as [N, C, H, W].
    std::vector<int64_t> in4 = input.sizes().vec(), out4 = out_sizes;
    if (input.dim() == params_.spatial_dims + 1) {  // unbatched: a batch of one
      in4.insert(in4.begin(), 1);
      out4.insert(out4.begin(), 1);
    }
    if (params_.spatial_dims == 1) {
      in4.insert(in4.begin() + 2, 1);
      out4.insert(out4.begin() + 2, 1);
    }
    const auto held = plans_.Get({in4[0], in4[1], in4[2], in4[3]}, [&] {
      return std::make_unique<std::unique_ptr<onednn::ReorderedPlan>>(MakePlan(in4, out4));
    });
    const std::unique_ptr<onednn::ReorderedPlan>& plan = *held;  // (held while it runs)
    if (plan == nullptr) {
      io.Output(0) = Reference(io, params_.spatial_dims);
      return;
    }
    at::Tensor& out = ReusableOrNewOutput(io, 0, at::kFloat);
    out.resize_(out_sizes);
    plan->Execute(input.data_ptr(), out.data_ptr());
  }

 private:
  // oneDNN's dims of the weight: [K, C, kh, kw], or grouped [groups,
  // K / groups, C / groups, kh, kw]; ATen stores it input channels first.
  static memory::desc PlainWeightDesc(const DeconvParams& params) {
    const at::Tensor& w = params.weight;
    const int64_t g = params.groups;
    return g == 1 ? onednn::FloatDesc({w.size(1), w.size(0), w.size(2), w.size(3)},
                                      memory::format_tag::iohw)
                  : onednn::FloatDesc({g, w.size(1), w.size(0) / g, w.size(2), w.size(3)},
                                      memory::format_tag::giohw);
  }

  // The result's sizes ([N, K, ...] or unbatched [K, ...]), or empty when the
  // kernel does not take `input`.
  std::vector<int64_t> OutputSizes(const at::Tensor& input) const {
    const int64_t dims = params_.spatial_dims;
    if (input.scalar_type() != at::kFloat || (input.dim() != dims + 2 && input.dim() != dims + 1) ||
        !input.is_cpu() || input.numel() == 0 || input.is_neg() || input.is_conj() ||
        !input.is_contiguous()) {
      return {};
    }
    const int64_t channels = input.dim() - dims - 1;
    if (input.size(channels) != params_.weight.size(0)) return {};
    std::vector<int64_t> sizes = input.sizes().vec();
    sizes[channels] = params_.weight.size(1) * params_.groups;
    for (int64_t i = 0; i < dims; ++i) {
      const int64_t k = 2 - dims + i;  // in the 2D hyper-parameters
      const int64_t extent =
          (input.size(channels + 1 + i) - 1) * params_.stride[k] - 2 * params_.padding[k] +
          params_.dilation[k] * (params_.weight.size(2 + k) - 1) + params_.output_padding[k] + 1;
      if (extent <= 0) return {};
      sizes[channels + 1 + i] = extent;
    }
    return sizes;
  }

  // oneDNN's deconvolution between NCHW tensors of these sizes, on the
  // layouts it chose; null when oneDNN refuses the shape.
  std::unique_ptr<onednn::ReorderedPlan> MakePlan(const std::vector<int64_t>& in,
                                                  const std::vector<int64_t>& out) {
    const at::Tensor& w = params_.weight;
    const memory::desc src =
        onednn::FloatDesc({in[0], in[1], in[2], in[3]}, memory::format_tag::nchw);
    const memory::desc dst =
        onednn::FloatDesc({out[0], out[1], out[2], out[3]}, memory::format_tag::nchw);
    const memory::desc bias = params_.bias.defined()
                                  ? onednn::FloatDesc({out[1]}, memory::format_tag::x)
                                  : memory::desc();
    memory::dims dilation(2), padding_r(2);
    for (int i = 0; i < 2; ++i) {
      dilation[i] = params_.dilation[i] - 1;
      // What the result's size leaves of the padding on the far side (less
      // the output padding).
      padding_r[i] = (in[2 + i] - 1) * params_.stride[i] +
                     params_.dilation[i] * (w.size(2 + i) - 1) + 1 - out[2 + i] -
                     params_.padding[i];
    }
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    try {
      const dnnl::deconvolution_forward::primitive_desc pd(
          dnnl::deconvolution_forward::desc(
              dnnl::prop_kind::forward_inference, dnnl::algorithm::deconvolution_direct,
              onednn::FloatDesc(src.dims(), memory::format_tag::any),
              onednn::FloatDesc(PlainWeightDesc(params_).dims(), memory::format_tag::any), bias,
              onednn::FloatDesc(dst.dims(), memory::format_tag::any),
              {params_.stride[0], params_.stride[1]}, dilation,
              {params_.padding[0], params_.padding[1]}, padding_r),
          attr, onednn::CpuEngine());
      return onednn::MakeWeightedPlan<dnnl::deconvolution_forward>(
          pd, packed_.Get(pd.weights_desc()), params_.bias, src, dst);
    } catch (const dnnl::error&) {
      return nullptr;
    }
  }

  const DeconvParams params_;
  onednn::PackedWeights packed_;
  onednn::PlanCache<std::unique_ptr<onednn::ReorderedPlan>> plans_;
};

// A constant int list of `dims` values (one value means all of them), as
// the 2D hyper-parameter: `fill` across a 1D signal's height.
std::optional<std::vector<int64_t>> HyperParameter(const torch::jit::Value* value, int64_t dims,
                                                   int64_t fill) {
  std::optional<std::vector<int64_t>> list =
      onednn::ConstantIntList(value, static_cast<size_t>(dims));
  if (list && dims == 1) list->insert(list->begin(), fill);
  return list;
}

KernelOffer MakeDeconvolutionKernel(const torch::jit::Node* node, int64_t spatial_dims) {
  std::optional<onednn::FrozenWeight> frozen = onednn::ReadFrozenWeight(node, spatial_dims + 2);
  const c10::optional<c10::IValue> groups = torch::jit::toIValue(node->input(6));
  if (!frozen || !groups || !groups->isInt()) return Decline();
  DeconvParams params;
  params.spatial_dims = spatial_dims;
  params.groups = groups->toInt();
  params.weight = std::move(frozen->weight);
  params.bias = std::move(frozen->bias);
  if (params.groups < 1 || params.weight.size(0) % params.groups != 0 ||
      (params.bias.defined() && params.bias.size(0) != params.weight.size(1) * params.groups)) {
    return Decline();  // ATen reports these
  }
  if (spatial_dims == 1) params.weight = params.weight.unsqueeze(2);
  auto stride = HyperParameter(node->input(3), spatial_dims, 1);
  auto padding = HyperParameter(node->input(4), spatial_dims, 0);
  auto output_padding = HyperParameter(node->input(5), spatial_dims, 0);
  auto dilation = HyperParameter(node->input(7), spatial_dims, 1);
  if (!stride || !padding || !output_padding || !dilation) return Decline();
  for (int i = 0; i < 2; ++i) {
    // ATen rejects an output padding not below the stride or the dilation.
    if ((*stride)[i] < 1 || (*dilation)[i] < 1 || (*padding)[i] < 0 || (*output_padding)[i] < 0 ||
        (*output_padding)[i] >= std::max((*stride)[i], (*dilation)[i])) {
      return Decline();
    }
  }
  params.stride = *std::move(stride);
  params.padding = *std::move(padding);
  params.output_padding = *std::move(output_padding);
  params.dilation = *std::move(dilation);
  auto kernel = std::make_shared<DeconvolutionKernel>(std::move(params));
  return [kernel](NodeIO& io) { (*kernel)(io); };
}

}  // namespace

void RegisterDeconvolutionKernels(KernelRegistry& registry) {
  registry.Add({KernelOp::Overload("aten::conv_transpose1d", ""), NodeKind::kOutVariant,
                [](const torch::jit::Node* node) { return MakeDeconvolutionKernel(node, 1); },
                ops::ConvTransposeErrorBound});
  registry.Add({KernelOp::Overload("aten::conv_transpose2d", "input"), NodeKind::kOutVariant,
                [](const torch::jit::Node* node) { return MakeDeconvolutionKernel(node, 2); },
                ops::ConvTransposeErrorBound});
}

}  // namespace static_runtime
