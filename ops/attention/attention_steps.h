// The elementwise and data-movement steps of a transformer encoder layer
// (ops/attention/transformer_encoder_layer.cc) that ATen runs as ops of their own,
// each with a dispatch, checks and often an allocation: here plain loops
// over float32 buffers, with ATen 1.13's arithmetic, so the same bits.
// Buffers are contiguous and do not overlap unless said otherwise.
#ifndef STATIC_RUNTIME_OPS_ATTENTION_ATTENTION_STEPS_H_
#define STATIC_RUNTIME_OPS_ATTENTION_ATTENTION_STEPS_H_

#include <cstdint>

namespace static_runtime {
namespace ops {

// at::_transform_bias_rescale_qkv: `qkv` [B, T, 3D] and its bias [3D] into
// `q_k_v` [3, B, heads, T, D / heads]: q = (qkv + bias) * s with
// s = float(1.0 / sqrt(float(D / heads))), k and v = qkv + bias.
void SplitHeads(const float* qkv, const float* bias, int64_t batch, int64_t tokens, int64_t width,
                int64_t heads, float* q_k_v);

// `context` [B, heads, T, D / heads] into `merged` [B, T, D] (heads side by
// side): the copy ATen makes of context.transpose(1, 2).
void MergeHeads(const float* context, int64_t batch, int64_t tokens, int64_t width, int64_t heads,
                float* merged);

// out[i] = out[i] + addend[i] (`out` may be `addend`).
void AddInPlace(float* out, const float* addend, int64_t count);

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_ATTENTION_ATTENTION_STEPS_H_
