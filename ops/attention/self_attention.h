// Multi-head self-attention as ATen 1.13 computes it in
// _native_multi_head_attention (and in the first half of
// _transformer_encoder_layer_fwd) for query = key = value: the q, k, v
// projection, the bias and the scaling of q, each sequence's heads' scores,
// softmax (masked softmax with a key padding mask) and times v, the heads
// merged, the output projection. The two projections run on oneDNN with the
// weights pre-packed (ops/linalg/onednn_matmul.h), so they sum in another order
// than ATen's; every other step has ATen's arithmetic and bits: the bias,
// scaling and merge as ATen's loops (ops/attention/attention_steps.h), the per-head
// products as ATen's gemm calls (ops/linalg/batched_gemm.h), softmax as ATen's
// kernel (ops/core/cpu_kernels.h) and the masked softmax as ATen's op.
//
// Run: the attention of the rows of `x` (the tokens of `sequences`, each
// sequence on its own; [rows, width] float32, contiguous) into `out` (as
// many rows). `padding`: undefined, or for sequences that are the rows of a
// dense [B, T] batch, a [B, T] boolean key padding mask (true: the key is
// masked; a sequence whose keys are all masked comes out NaN, as ATen's).
// Intermediates live in per-thread buffers that grow with the token count,
// so a warm call allocates nothing (a masked call: ATen's masked softmax's
// result per sequence). One object serves several threads at once.
// RunQueryRows: the same for a few query tokens (a model that reads one
// token of the layer's result): the projection of q, k, v for every token,
// the scores, softmax and context of the tokens asked.
#ifndef STATIC_RUNTIME_OPS_ATTENTION_SELF_ATTENTION_H_
#define STATIC_RUNTIME_OPS_ATTENTION_SELF_ATTENTION_H_

#include <cstdint>
#include <vector>

#include "ATen/ATen.h"
#include "ops/attention/nested_sequences.h"
#include "ops/linalg/onednn_matmul.h"

namespace static_runtime {
namespace ops {

class SelfAttention {
 public:
  // `qkv_weight` [3 width, width], `qkv_bias` [3 width], `proj_weight`
  // [width, width], `proj_bias` [width]: float32, contiguous; width a
  // multiple of `heads`.
  SelfAttention(int64_t width, int64_t heads, at::Tensor qkv_weight, at::Tensor qkv_bias,
                at::Tensor proj_weight, at::Tensor proj_bias);

  void Run(const float* x, const PackedSequences& sequences, const at::Tensor& padding, float* out);

  // Run's rows of one query token per sequence: `query_rows[i]` the token
  // of sequence i (a row within it), or -1 for none. `out` gets one row per
  // token asked, in sequence order; every token is still a key and a value.
  void RunQueryRows(const float* x, const PackedSequences& sequences, const at::Tensor& padding,
                    const std::vector<int64_t>& query_rows, float* out);

 private:
  const int64_t width_, heads_;
  const at::Tensor qkv_bias_;
  onednn::PackedLinear qkv_;  // ATen adds the bias with the scaling
  onednn::PackedLinear proj_;
};

// `sequences` as the `batch` rows of `tokens` tokens of a dense batch.
void DenseSequences(int64_t batch, int64_t tokens, int64_t width, PackedSequences& sequences);

// Whether `mask` is a key padding mask ATen's attention takes for the dense
// [B, T, D] source `x`: mask type 1, [B, T], boolean or floating, on the CPU.
bool IsKeyPaddingMask(const at::Tensor& mask, c10::optional<int64_t> mask_type,
                      const at::Tensor& x);

// The key padding mask as Run takes it: ATen's attention takes a
// non-boolean mask as mask.to(bool); undefined without a mask.
at::Tensor BooleanKeyPaddingMask(const c10::optional<at::Tensor>& mask);

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_ATTENTION_SELF_ATTENTION_H_
