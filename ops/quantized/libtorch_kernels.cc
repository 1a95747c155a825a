// Native kernels that make LibTorch's own call for quantized operators, for
// statically quantized models (torch.ao.quantization's convert on CNNs and
// linears): quantized::conv2d.new and conv2d_relu.new, quantized::linear and
// linear_relu (the packed parameters' own apply / apply_relu, read once when
// the model loads where they are a constant of the frozen model, as they
// are after freezing), quantized::add and add_relu (LibTorch's kernel,
// called through its typed dispatcher handle), aten::quantize_per_tensor
// and aten::dequantize.self; and for quantized::linear_dynamic and
// linear_relu_dynamic where their out variant (dynamic_linear_kernels.cc)
// declines the node (qnnpack-packed weights, a CPU without VNNI): the
// packed parameters' apply_dynamic / apply_dynamic_relu. Each computes what
// the JIT's operator computes, by the same call on the same engine's packed
// weights, without the interpreter's stack: bit for bit its result, and its
// error for inputs it refuses. Quantized tensors carry their quantizer, so
// their outputs are not planned (memory/): these kernels allocate them, as
// the JIT does.
#include <utility>

#include "ATen/ATen.h"
#include "ATen/core/dispatch/Dispatcher.h"
#include "ATen/native/quantized/PackedParams.h"
#include "ops/core/registry.h"
#include "torch/csrc/jit/ir/constants.h"

namespace static_runtime {
namespace {

// Calls `apply` on the node's packed parameters (input 1, of class
// `Params`): the constant read once where it is one, else each run's.
template <typename Params, at::Tensor (*Apply)(Params&, const NodeIO&)>
KernelOffer PackedKernel(const torch::jit::Node* node) {
  const c10::optional<c10::IValue> constant = torch::jit::toIValue(node->input(1));
  if (constant.has_value() && constant->isCustomClass()) {
    c10::intrusive_ptr<Params> params = constant->toCustomClass<Params>();
    return [params = std::move(params)](NodeIO& io) { io.Output(0) = Apply(*params, io); };
  }
  return [](NodeIO& io) { io.Output(0) = Apply(*io.Input(1).toCustomClass<Params>(), io); };
}

// (qx, packed, output_scale, output_zero_point): conv2d.new, linear.
template <typename Params, bool kRelu>
at::Tensor ApplyPacked(Params& params, const NodeIO& io) {
  const at::Tensor& input = io.Input(0).toTensor();
  const double scale = io.Input(2).toDouble();
  const int64_t zero_point = io.Input(3).toInt();
  return kRelu ? params.apply_relu(input, scale, zero_point)
               : params.apply(input, scale, zero_point);
}

// (x, packed, reduce_range): linear_dynamic.
template <bool kRelu>
at::Tensor ApplyDynamic(LinearPackedParamsBase& params, const NodeIO& io) {
  const at::Tensor& input = io.Input(0).toTensor();
  const bool reduce_range = io.Input(2).toBool();
  return kRelu ? params.apply_dynamic_relu(input, reduce_range)
               : params.apply_dynamic(input, reduce_range);
}

using Conv2dParams = ConvPackedParamsBase<2>;

// quantized::add / add_relu (qa, qb, scale, zero_point): LibTorch's kernel.
template <bool kRelu>
void QuantizedAdd(NodeIO& io) {
  // The signature LibTorch registered the kernel with (tensors by value).
  using Signature = at::Tensor(at::Tensor, at::Tensor, double, int64_t);
  static const c10::TypedOperatorHandle<Signature> op =
      c10::Dispatcher::singleton()
          .findSchemaOrThrow(kRelu ? "quantized::add_relu" : "quantized::add", "")
          .typed<Signature>();
  io.Output(0) = op.call(io.Input(0).toTensor(), io.Input(1).toTensor(), io.Input(2).toDouble(),
                         io.Input(3).toInt());
}

}  // namespace

void RegisterLibtorchKernels(KernelRegistry& registry) {
  registry.Add({KernelOp::Overload("quantized::conv2d", "new"), NodeKind::kNative,
                PackedKernel<Conv2dParams, ApplyPacked<Conv2dParams, false>>});
  registry.Add({KernelOp::Overload("quantized::conv2d_relu", "new"), NodeKind::kNative,
                PackedKernel<Conv2dParams, ApplyPacked<Conv2dParams, true>>});
  registry.Add({KernelOp::Overload("quantized::linear", ""), NodeKind::kNative,
                PackedKernel<LinearPackedParamsBase, ApplyPacked<LinearPackedParamsBase, false>>});
  registry.Add({KernelOp::Overload("quantized::linear_relu", ""), NodeKind::kNative,
                PackedKernel<LinearPackedParamsBase, ApplyPacked<LinearPackedParamsBase, true>>});
  registry.Add({KernelOp::Overload("quantized::linear_dynamic", ""), NodeKind::kNative,
                PackedKernel<LinearPackedParamsBase, ApplyDynamic<false>>});
  registry.Add({KernelOp::Overload("quantized::linear_relu_dynamic", ""), NodeKind::kNative,
                PackedKernel<LinearPackedParamsBase, ApplyDynamic<true>>});
  registry.Add(Native("quantized::add", "", QuantizedAdd<false>));
  registry.Add(Native("quantized::add_relu", "", QuantizedAdd<true>));
  registry.Add(Native("aten::quantize_per_tensor", "", [](NodeIO& io) {
    io.Output(0) = at::quantize_per_tensor(io.Input(0).toTensor(), io.Input(1).toDouble(),
                                           io.Input(2).toInt(), io.Input(3).toScalarType());
  }));
  registry.Add(Native("aten::dequantize", "self",
                      [](NodeIO& io) { io.Output(0) = at::dequantize(io.Input(0).toTensor()); }));
}

}  // namespace static_runtime
