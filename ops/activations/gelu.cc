// aten::gelu as an out variant: ATen's structured CPU kernel (at::cpu::gelu_out)
// writes into the output. ATen computes gelu (approximate 'none') of a
// contiguous float tensor through oneDNN and of any other layout through its
// own kernel: other roundings, and several times slower. A tensor that is
// channels-last only because a convolution chose that layout
// (ChannelsLastByChoice in ops/core/channels_last.h) is contiguous in the JIT, so
// its gelu runs over the dense buffer as one contiguous row: the JIT's values
// at the contiguous speed, in the input's layout. (A model fed channels-last
// images holds such a tensor channels-last in the JIT too; the values then
// differ from the JIT's in the last bit, after a convolution whose own
// rounding differs more.) Any other input gets ATen's op as it is.
//
// The kernel declares an error bound (ErrorBound in ops/core/registry.h), since
// the differential harness compares it with the JIT's operator on the same,
// channels-last, tensor: both roundings of gelu (approximate 'none') are
// within 4 eps32 (|exact| + |x|) of the exact value (an erf error of a few
// ulp, times x / 2), checked by gelu_test. With prepack_weights off no
// convolution chooses a layout, and the kernel gives ATen's bits.
#include <limits>
#include <string>
#include <vector>

#include "ATen/ATen.h"
#include "ATen/CPUFunctions.h"
#include "ops/core/channels_last.h"
#include "ops/core/out_variant.h"

namespace static_runtime {
namespace {

// gelu of the dense tensor `self` into `out` of the same strides, as if both
// were one contiguous row (ATen's CPU kernel, below autograd as in
// WriteOutput's out path).
void GeluOfDenseBuffer(const at::Tensor& self, const std::string& approximate, at::Tensor& out) {
  at::AutoDispatchBelowADInplaceOrView below_autograd;
  at::Tensor row = out.as_strided({out.numel()}, {1});
  at::cpu::gelu_out(row, self.as_strided({self.numel()}, {1}), approximate);
}

at::Tensor GeluErrorBound(const std::vector<c10::IValue>& inputs, const at::Tensor& exact) {
  const double eps32 = std::numeric_limits<float>::epsilon();
  return 4 * eps32 * (exact.abs() + inputs[0].toTensor().to(at::kDouble).abs());
}

KernelOffer MakeGeluKernel(const torch::jit::Node* node) {
  const bool layout_by_choice = ChannelsLastByChoice(node->input(0));
  return [layout_by_choice](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    const std::string& approximate = io.Input(1).toStringRef();
    if (layout_by_choice && self.dim() == 4 && !self.is_contiguous() &&
        self.is_contiguous(at::MemoryFormat::ChannelsLast)) {
      WriteOutput(
          io, 0, self.scalar_type(),
          [&] {
            at::Tensor result = at::empty_like(self);
            GeluOfDenseBuffer(self, approximate, result);
            return result;
          },
          [&](at::Tensor& out) {
            out.resize_(self.sizes(), at::MemoryFormat::ChannelsLast);
            GeluOfDenseBuffer(self, approximate, out);
          });
      return;
    }
    WriteOutput(
        io, 0, self.scalar_type(), [&] { return at::gelu(self, approximate); },
        [&](at::Tensor& out) { at::cpu::gelu_out(out, self, approximate); });
  };
}

}  // namespace

void RegisterGeluKernels(KernelRegistry& registry) {
  registry.Add({KernelOp::Overload("aten::gelu", ""), NodeKind::kOutVariant, MakeGeluKernel,
                GeluErrorBound});
}

}  // namespace static_runtime
