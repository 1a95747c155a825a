// aten::group_norm as an out variant: ATen's CPU group-norm kernel (the
// dispatch stub native_group_norm calls), or ops/nn/group_norm_rows.h's
// equal of it, writes straight into the output, so the results are ATen's
// bit for bit, without native_group_norm's fresh output and its mean and
// rstd allocations (those go to per-thread scratch tensors). Taken for
// contiguous float and double inputs of at least two dimensions with a
// whole number of channels per group, weight and bias absent or contiguous
// C-element tensors of the input's dtype; anything else (channels-last
// layouts, mixed dtypes, bad arguments) runs ATen's op, with its result or
// its error.
#include "ATen/ATen.h"
#include "c10/util/accumulate.h"
#include "ops/core/out_variant.h"
#include "ops/nn/affine_parameter.h"
#include "ops/nn/group_norm_rows.h"

namespace static_runtime {

void RegisterGroupNormKernels(KernelRegistry& registry) {
  registry.Add(OutVariant("aten::group_norm", "", [](NodeIO& io) {
    const at::Tensor& input = TensorArg(io, 0);
    const int64_t groups = io.Input(1).toInt();
    const c10::optional<at::Tensor> weight = OptionalTensorArg(io, 2);
    const c10::optional<at::Tensor> bias = OptionalTensorArg(io, 3);
    const double eps = io.Input(4).toDouble();
    const bool cudnn = io.Input(5).toBool();
    auto functional = [&] { return at::group_norm(input, groups, weight, bias, eps, cudnn); };
    const at::ScalarType dtype = input.scalar_type();
    const int64_t channels = input.dim() >= 2 ? input.size(1) : 0;
    if ((dtype != at::kFloat && dtype != at::kDouble) || input.dim() < 2 || input.numel() == 0 ||
        !PlainCpuTensor(input) || !input.is_contiguous() ||
        input.suggest_memory_format() != at::MemoryFormat::Contiguous || groups <= 0 ||
        channels % groups != 0 || !PlainAffineParameter(weight, channels, dtype) ||
        !PlainAffineParameter(bias, channels, dtype)) {
      io.Output(0) = functional();
      return;
    }
    WriteOutput(io, 0, dtype, functional, [&](at::Tensor& out) {
      const int64_t batch = input.size(0);
      const int64_t spatial = c10::multiply_integers(input.sizes().slice(2));
      at::Tensor& mean = ThreadScratch(0, dtype);
      at::Tensor& rstd = ThreadScratch(1, dtype);
      out.resize_(input.sizes());
      mean.resize_({batch, groups});
      rstd.resize_({batch, groups});
      const at::Tensor gamma = weight && weight->defined() ? *weight : at::Tensor();
      const at::Tensor beta = bias && bias->defined() ? *bias : at::Tensor();
      ops::FastGroupNormInto(input, gamma, beta, batch, channels, spatial, groups, eps, out, mean,
                             rstd);
    });
  }));
}

}  // namespace static_runtime
