// aten::instance_norm as an out variant, for the case models run
// (nn.InstanceNorm1d/2d/3d without running statistics: use_input_stats and
// no running mean or variance). ATen computes it as a training-mode batch
// norm of the input viewed as [1, N * C, ...] with the weight and bias
// repeated N times; this kernel makes the same three steps on that view:
// ATen's statistics kernel (the dispatch stub batch_norm_cpu_collect_stats),
// the inverse standard deviation as ATen's batch norm derives it from the
// variance sum (in double, from the sum divided by the element count), and
// ATen's transform kernel (batch_norm_cpu) straight into the output. So the
// results are ATen's bit for bit, without its fresh output, its repeated
// weight and bias and its four statistics tensors (those live in per-thread
// scratch tensors). Taken for contiguous float and double inputs of at
// least three dimensions with elements, weight and bias absent or
// contiguous C-element tensors of the input's dtype; anything else (running
// statistics, which ATen also updates in place; other layouts; bad
// arguments) runs ATen's op, with its result or its error. Compiled with the
// CPU-capability definitions LibTorch was built with, so the stubs have the
// layout they have inside libtorch_cpu.so.
#include <cmath>
#include <vector>

#include "ATen/ATen.h"
#include "ATen/native/batch_norm.h"
#include "ops/core/out_variant.h"
#include "ops/nn/affine_parameter.h"

namespace static_runtime {
namespace {

// The per-thread tensor in scratch slot `slot` as a 1-D tensor of `size`
// elements of `dtype`.
at::Tensor& Scratch(int slot, int64_t size, at::ScalarType dtype) {
  at::Tensor& tensor = ThreadScratch(slot, dtype);
  tensor.resize_({size});
  return tensor;
}

// `param` repeated `times` times into scratch slot `slot` (undefined when
// absent), as ATen's instance norm repeats the weight and bias.
at::Tensor Repeat(const c10::optional<at::Tensor>& param, int64_t times, int slot) {
  if (!param || !param->defined()) return at::Tensor();
  at::Tensor& into = Scratch(slot, times * param->numel(), param->scalar_type());
  into.view({times, param->numel()}).copy_(*param);
  return into;
}

// ATen's batch norm's inverse standard deviation of each channel from its
// variance sum over `count` elements: the quotient in the input's type,
// then 1 / sqrt(var + eps) in double (its accumulation type on the CPU).
template <typename scalar_t>
void InverseStd(const at::Tensor& var_sum, int64_t count, double eps, at::Tensor& invstd) {
  const scalar_t* sums = var_sum.data_ptr<scalar_t>();
  scalar_t* out = invstd.data_ptr<scalar_t>();
  for (int64_t f = 0; f < var_sum.numel(); ++f) {
    const double var = sums[f] / count;
    double inverse = 0;
    if (var != 0 || eps != 0) inverse = 1 / std::sqrt(var + eps);
    out[f] = static_cast<scalar_t>(inverse);
  }
}

}  // namespace

void RegisterInstanceNormKernels(KernelRegistry& registry) {
  registry.Add(OutVariant("aten::instance_norm", "", [](NodeIO& io) {
    const at::Tensor& input = TensorArg(io, 0);
    const c10::optional<at::Tensor> weight = OptionalTensorArg(io, 1);
    const c10::optional<at::Tensor> bias = OptionalTensorArg(io, 2);
    const c10::optional<at::Tensor> running_mean = OptionalTensorArg(io, 3);
    const c10::optional<at::Tensor> running_var = OptionalTensorArg(io, 4);
    const bool use_input_stats = io.Input(5).toBool();
    const double momentum = io.Input(6).toDouble();
    const double eps = io.Input(7).toDouble();
    const bool cudnn = io.Input(8).toBool();
    auto functional = [&] {
      return at::instance_norm(input, weight, bias, running_mean, running_var, use_input_stats,
                               momentum, eps, cudnn);
    };
    const at::ScalarType dtype = input.scalar_type();
    const int64_t channels = input.dim() >= 2 ? input.size(1) : 0;
    const bool running_stats =
        (running_mean && running_mean->defined()) || (running_var && running_var->defined());
    if ((dtype != at::kFloat && dtype != at::kDouble) || input.dim() < 3 || input.numel() == 0 ||
        !PlainCpuTensor(input) || !input.is_contiguous() ||
        input.suggest_memory_format() != at::MemoryFormat::Contiguous || !use_input_stats ||
        running_stats || !PlainAffineParameter(weight, channels, dtype) ||
        !PlainAffineParameter(bias, channels, dtype)) {
      io.Output(0) = functional();
      return;
    }
    WriteOutput(io, 0, dtype, functional, [&](at::Tensor& out) {
      const int64_t batch = input.size(0);
      const int64_t planes = batch * channels;
      std::vector<int64_t> shape = input.sizes().vec();
      shape[0] = 1;
      shape[1] = planes;
      out.resize_(input.sizes());
      const at::Tensor planes_in = input.view(shape);
      at::Tensor planes_out = out.view(shape);
      // The statistics of the N * C planes, and the weight and bias
      // repeated N times.
      at::Tensor& mean = Scratch(0, planes, dtype);
      at::Tensor& var_sum = Scratch(1, planes, dtype);
      at::Tensor& invstd = Scratch(2, planes, dtype);
      const at::Tensor repeated_weight = Repeat(weight, batch, 3);
      const at::Tensor repeated_bias = Repeat(bias, batch, 4);
      at::native::batch_norm_cpu_collect_stats_stub(at::kCPU, mean, var_sum, planes_in);
      const int64_t count = input.numel() / planes;
      AT_DISPATCH_FLOATING_TYPES(dtype, "instance_norm",
                                 [&] { InverseStd<scalar_t>(var_sum, count, eps, invstd); });
      at::native::batch_norm_cpu_stub(at::kCPU, planes_out, planes_in, repeated_weight,
                                      repeated_bias, mean, invstd, at::Tensor(), at::Tensor(),
                                      /*train=*/true, eps);
    });
  }));
}

}  // namespace static_runtime
