#include "ops/core/cpu_kernels.h"

#include "ATen/native/layer_norm.h"

namespace static_runtime {

void LayerNormInto(const at::Tensor& x, const at::Tensor& gamma, const at::Tensor& beta, int64_t m,
                   int64_t n, double eps, at::Tensor& out, at::Tensor& mean, at::Tensor& rstd) {
  at::native::LayerNormKernel(at::kCPU, x, gamma, beta, m, n, eps, &out, &mean, &rstd);
}

}  // namespace static_runtime
