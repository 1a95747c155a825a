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
// them; ops/conv/conv2d_test and ops/linalg/onednn_linear_test check both oneDNN's
// and ATen's results against them.
#ifndef STATIC_RUNTIME_OPS_CORE_ERROR_BOUNDS_H_
#define STATIC_RUNTIME_OPS_CORE_ERROR_BOUNDS_H_

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

// The same for linear_fused (input, weight, bias, activation, min_value,
// max_value), with L the input's last dimension.
at::Tensor LinearFusedErrorBound(const std::vector<c10::IValue>& inputs, const at::Tensor& exact);

// transformer_encoder_layer (aten::_transformer_encoder_layer_fwd's
// arguments), whose four matrix products sum in another order. A layer norm
// turns an error e in its input row z into about e |gamma| / sigma(z) in its
// output, so errors of size eps |z| grow by A = max|z| / sigma(z) (about 3
// for a well-spread row; huge for a nearly constant one). The bound
// declared is of the linear bound's form with the layer's summation lengths,
// grown by both layer norms' A (A1: the largest over the rows of the first
// norm's input, whose errors mix across rows in attention; A2: that row's
// for the second):
//   |result - exact| <= 4 (D + F) eps32 (1 + A1) (1 + A2) (1 + max|exact| of the row)
// with D the model width and F the feed-forward width. It is not proven;
// ops/attention/transformer_encoder_layer_test checks it with ATen's and our results.
at::Tensor TransformerEncoderLayerErrorBound(const std::vector<c10::IValue>& inputs,
                                             const at::Tensor& exact);

// multi_head_attention (aten::_native_multi_head_attention's arguments,
// query = key = value: x), whose two projections sum in another order. With
// |.| the same computation on absolute values (|x| |W|^T + |b|), P the
// exact attention probabilities, D the width, T the keys and d the head
// width: a score's error is at most s = 2 (D + d + 4) eps32 |q| |k|^T (its
// q and k carry the projection's error), which changes a probability by a
// factor within exp(2 s), so a context element's error is at most
//   c = P |v| (2 (D + T + 4) eps32 + 4 max s over the row's keys)
// and the result's
//   |Wo| c + 2 (D + 2) eps32 (|Wo| P |v| + |bo|) + 4 eps32 |exact|.
// A nested x is bounded as its padded form with its padding masked. Not
// proven; ops/attention/multi_head_attention_test checks it with ATen's and
// our results.
at::Tensor MultiHeadAttentionErrorBound(const std::vector<c10::IValue>& inputs,
                                        const at::Tensor& exact);

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_CORE_ERROR_BOUNDS_H_
