// Direct calls into ATen's CPU kernels, for ops whose public out form is a
// wrapper that computes into temporaries and copies, or whose dispatch and
// checks cost more than the kernel on small tensors. Compiled alone with the
// CPU-capability definitions LibTorch itself was built with, so ATen's
// dispatch stubs have the same layout here as inside libtorch_cpu.so.
#ifndef STATIC_RUNTIME_OPS_CORE_CPU_KERNELS_H_
#define STATIC_RUNTIME_OPS_CORE_CPU_KERNELS_H_

#include <cstdint>

#include "ATen/ATen.h"

namespace static_runtime {

// ATen's layer-norm forward kernel: `x` (contiguous, M x N elements) into
// `out` (same shape, contiguous), with per-row `mean` and `rstd` (M
// elements). `gamma` and `beta` are contiguous N-element tensors or undefined.
void LayerNormInto(const at::Tensor& x, const at::Tensor& gamma, const at::Tensor& beta, int64_t m,
                   int64_t n, double eps, at::Tensor& out, at::Tensor& mean, at::Tensor& rstd);

// ATen's softmax (`log`: log-softmax) kernel over the last dimension: `x`
// (contiguous, float or double, at least one element) into `out` (same
// shape and dtype, contiguous; may be `x`), as at::_softmax and
// at::_log_softmax compute it.
void SoftmaxLastDimInto(const at::Tensor& x, const at::Tensor& out, bool log = false);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_CORE_CPU_KERNELS_H_
