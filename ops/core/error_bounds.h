// The error bounds that kernels summing in another order than ATen declare
// (ErrorBound in ops/core/registry.h). For a float32 result of a sum of L products
// computed in any order, followed by an activation:
//   |result - exact| <= 2 (L + 2) eps32 slope M + 4 eps32 |exact|
//                       [+ 4 eps32 M for gelu and silu] + (L + 2) slope min32
// with M the same computation on absolute values (|x| conv |w| + |bias| +
// |residual| for a convolution, |x| |w|^T + |bias| for a linear), slope the
// activation's steepest slope (1.5 for hardswish, 1.13 for gelu and silu, 1
// otherwise), the second term the activation's own rounding (for gelu and
// silu, whose exp or erf rounds relative to the activation's input, also the
// third: that input is at most M) and the last the roundings below
// float32's smallest normal number min32 (each a subnormal step, or the
// whole of it where a kernel flushes subnormals to zero). The README's tolerance table states
// them, each family's bounds live beside its kernels; ops/conv/conv2d_test and
// ops/linalg/onednn_linear_test check both oneDNN's and ATen's results against them.
#ifndef STATIC_RUNTIME_OPS_CORE_ERROR_BOUNDS_H_
#define STATIC_RUNTIME_OPS_CORE_ERROR_BOUNDS_H_

#include <cstdint>
#include <string>

#include "ATen/ATen.h"
#include "ATen/core/ivalue.h"

namespace static_runtime {
namespace ops {

// |value| in float64, or nullopt for a value that is not a tensor (an
// absent bias or residual).
c10::optional<at::Tensor> Magnitude(const c10::IValue& value);

// The bound above for a float32 result `exact` (float64) of sums of
// `length` products whose absolute values sum to `magnitude` (M), followed
// by `activation` ("none", "relu", "gelu", ...). The families' bounds
// (ops/conv/conv_error_bounds.h, ops/linalg/linear_error_bound.h) are this
// formula with their M and L.
at::Tensor SumBound(const at::Tensor& magnitude, int64_t length, const std::string& activation,
                    const at::Tensor& exact);

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_CORE_ERROR_BOUNDS_H_
