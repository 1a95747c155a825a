// The error bounds the attention kernels declare (ErrorBound in
// ops/core/registry.h): a transformer encoder layer's and multi-head
// attention's, whose products sum in another order than ATen's.
#ifndef STATIC_RUNTIME_OPS_ATTENTION_ATTENTION_ERROR_BOUNDS_H_
#define STATIC_RUNTIME_OPS_ATTENTION_ATTENTION_ERROR_BOUNDS_H_

#include <vector>

#include "ATen/ATen.h"
#include "ATen/core/ivalue.h"

namespace static_runtime {
namespace ops {

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

#endif  // STATIC_RUNTIME_OPS_ATTENTION_ATTENTION_ERROR_BOUNDS_H_
