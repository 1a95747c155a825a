// aten::glu as an out variant: ATen's structured CPU kernel (at::cpu::glu_out)
// writes the gated half straight into the output, the same arithmetic as
// the op, without the op's fresh output. ATen checks the arguments.
#include "ATen/ATen.h"
#include "ATen/CPUFunctions.h"
#include "ops/core/out_variant.h"

namespace static_runtime {

void RegisterGluKernels(KernelRegistry& registry) {
  registry.Add(OutVariant("aten::glu", "", [](NodeIO& io) {
    const at::Tensor& input = TensorArg(io, 0);
    const int64_t dim = io.Input(1).toInt();
    WriteOutput(
        io, 0, input.scalar_type(), [&] { return at::glu(input, dim); },
        [&](at::Tensor& out) { at::cpu::glu_out(out, input, dim); });
  }));
}

}  // namespace static_runtime
