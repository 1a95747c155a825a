// Out-variant kernels for quantized::linear_dynamic and
// linear_relu_dynamic (torch.ao.quantization.quantize_dynamic's linears) on
// DynamicLinear (dynamic_linear.h): bit for bit LibTorch's. The packed
// parameters must be a constant of the frozen model, packed by the onednn
// engine; other nodes are declined, and inputs the kernel does not take
// (non-float, non-finite, a width not matching the weight) run LibTorch's
// op, which gives its own result or error.
#include <memory>

#include "ATen/ATen.h"
#include "ATen/native/quantized/PackedParams.h"
#include "c10/util/SmallVector.h"
#include "ops/core/out_variant.h"
#include "ops/quantized/dynamic_linear.h"
#include "torch/csrc/jit/ir/constants.h"

namespace static_runtime {
namespace {

// The kernel for a node whose packed parameters (input 1) DynamicLinear
// takes; else declined.
KernelOffer MakeKernel(const torch::jit::Node* node, bool relu) {
  const c10::optional<c10::IValue> constant = torch::jit::toIValue(node->input(1));
  if (!constant.has_value() || !constant->isCustomClass()) return Decline();
  const auto params = constant->toCustomClass<LinearPackedParamsBase>();
  std::shared_ptr<quantized::DynamicLinear> linear =
      quantized::DynamicLinear::FromPacked(*params, relu);
  if (linear == nullptr) return Decline();
  return [linear, params, relu](NodeIO& io) {
    const at::Tensor& input = TensorArg(io, 0);
    const bool reduce_range = io.Input(2).toBool();
    const int64_t k = linear->in_features();
    if (input.scalar_type() == at::kFloat && input.dim() >= 2 && input.size(-1) == k &&
        input.numel() > 0 && !input.is_neg() && !input.is_conj() && input.is_cpu()) {
      const at::Tensor src = input.contiguous();
      c10::SmallVector<int64_t, 4> out_sizes(input.sizes().begin(), input.sizes().end() - 1);
      out_sizes.push_back(linear->out_features());
      at::Tensor& out = ContiguousOutput(io, 0, at::kFloat, out_sizes);
      if (linear->Compute(src.data_ptr<float>(), src.numel() / k, reduce_range,
                          out.data_ptr<float>())) {
        return;
      }
    }
    io.Output(0) = relu ? params->apply_dynamic_relu(input, reduce_range)
                        : params->apply_dynamic(input, reduce_range);
  };
}

}  // namespace

void RegisterDynamicLinearKernels(KernelRegistry& registry) {
  registry.Add({KernelOp::Overload("quantized::linear_dynamic", ""), NodeKind::kOutVariant,
                [](const torch::jit::Node* node) { return MakeKernel(node, /*relu=*/false); }});
  registry.Add({KernelOp::Overload("quantized::linear_relu_dynamic", ""), NodeKind::kOutVariant,
                [](const torch::jit::Node* node) { return MakeKernel(node, /*relu=*/true); }});
}

}  // namespace static_runtime
