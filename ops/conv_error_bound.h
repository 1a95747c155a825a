// The error bound of static_runtime::conv2d_fused computed in float32 in any
// summation order (oneDNN's blocked kernels, ATen's reference): for each
// output element,
//   |result - exact| <= 2 (L + 2) eps32 slope M + 4 eps32 |exact|
// with L = C_in / groups * kh * kw the reduction length, M the same
// convolution on absolute values (|x| conv |w| + |bias| + |residual|), slope
// the activation's steepest slope (1.5 for hardswish, 1 otherwise) and the
// last term the activation's own rounding. The README's tolerance table
// states it; ops/onednn_conv_test checks both oneDNN's and ATen's results
// against it.
#ifndef STATIC_RUNTIME_OPS_CONV_ERROR_BOUND_H_
#define STATIC_RUNTIME_OPS_CONV_ERROR_BOUND_H_

#include <vector>

#include "ATen/ATen.h"
#include "ATen/core/ivalue.h"

namespace static_runtime {
namespace ops {

// `inputs` are conv2d_fused's, in schema order (input, weight, bias, stride,
// padding, dilation, groups, residual, activation, min_value, max_value);
// `exact` is its float64 result. Returns the bound per element, in float64.
at::Tensor Conv2dFusedErrorBound(const std::vector<c10::IValue>& inputs, const at::Tensor& exact);

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_CONV_ERROR_BOUND_H_
