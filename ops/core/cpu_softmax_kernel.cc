// SoftmaxLastDimInto (ops/core/cpu_kernels.h), apart from cpu_kernels.cc: ATen's
// softmax and layer-norm headers declare conflicting `backward_fn` types.
#include "ATen/native/cpu/SoftmaxKernel.h"
#include "ops/core/cpu_kernels.h"

namespace static_runtime {

void SoftmaxLastDimInto(const at::Tensor& x, const at::Tensor& out, bool log) {
  if (log) {
    at::native::log_softmax_lastdim_kernel(at::kCPU, out, x);
  } else {
    at::native::softmax_lastdim_kernel(at::kCPU, out, x);
  }
}

}  // namespace static_runtime
