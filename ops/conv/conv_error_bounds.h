// The error bounds the convolution kernels declare (ErrorBound in
// ops/core/registry.h): ops/core/error_bounds.h's sum-of-products bound with
// each convolution's M and L, and the Winograd shapes' wider M.
#ifndef STATIC_RUNTIME_OPS_CONV_CONV_ERROR_BOUNDS_H_
#define STATIC_RUNTIME_OPS_CONV_CONV_ERROR_BOUNDS_H_

#include <cstdint>
#include <vector>

#include "ATen/ATen.h"
#include "ATen/core/ivalue.h"

namespace static_runtime {
namespace ops {

// Whether a convolution of this shape (3 x 3, or 3D 1 x 3 x 3, stride 1,
// dilation 1, one group) may run a Winograd kernel, which computes each tile of up to
// 4 x 4 outputs from transforms of the whole 6 x 6 input tile: its error
// grows with the largest input of the tile, not only with the products of
// each output. For such shapes M is replaced by
//   S = sum over input channels c of (max |x_c| over the 9 x 9 window that
//       holds every tile the output can belong to) x sum |w_kc| + |bias| + |residual|
// (>= M), in the same formula. This is not proven for oneDNN's transforms;
// ops/conv/conv2d_test checks it on random and heavy-tailed inputs.
bool WinogradShape(at::IntArrayRef weight_sizes, at::IntArrayRef stride, at::IntArrayRef dilation,
                   int64_t groups);

// `inputs` are conv2d_fused's, in schema order (input, weight, bias, stride,
// padding, dilation, groups, residual, activation, min_value, max_value);
// `exact` is its float64 result. Returns the bound per element, in float64.
at::Tensor Conv2dFusedErrorBound(const std::vector<c10::IValue>& inputs, const at::Tensor& exact);

// The same for aten::conv_transpose1d and conv_transpose2d (input, weight,
// bias, stride, padding, output_padding, groups, dilation), with M the
// transposed convolution of the absolute values and L = C / groups * kh * kw
// (at least as many products as any output sums; no activation).
at::Tensor ConvTransposeErrorBound(const std::vector<c10::IValue>& inputs, const at::Tensor& exact);

// The same for aten::conv3d (input, weight, bias, stride, padding (a list, or
// "valid" / "same"), dilation, groups), with M the convolution of the
// absolute values and L = C / groups * kd * kh * kw (no activation); for a
// Winograd shape (1 x 3 x 3, run as a 2D convolution of each frame) M is
// replaced by conv2d_fused's S, frame by frame.
at::Tensor Conv3dErrorBound(const std::vector<c10::IValue>& inputs, const at::Tensor& exact);

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_CONV_CONV_ERROR_BOUNDS_H_
