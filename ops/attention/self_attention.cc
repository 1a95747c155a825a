#include "ops/attention/self_attention.h"

#include <optional>
#include <utility>

#include "c10/core/InferenceMode.h"
#include "ops/attention_steps.h"
#include "ops/batched_gemm.h"
#include "ops/cpu_kernels.h"

namespace static_runtime {
namespace ops {
namespace {

// The attention's intermediates, per thread.
struct Workspace {
  at::Tensor qkv, q_k_v, scores, context, merged;
};

Workspace& ThreadWorkspace() {
  thread_local Workspace workspace;
  return workspace;
}

// `tensor` as a float tensor of at least `elements` elements.
void Reserve(at::Tensor& tensor, int64_t elements) {
  if (!tensor.defined()) tensor = at::empty({0}, at::kFloat);
  if (tensor.numel() < elements) tensor.resize_({elements});
}

// at::bmm_out(out, a, b) into `out` (contiguous, of the product's size),
// with ATen's own per-batch gemm calls made directly where it makes them.
void BatchedProduct(at::Tensor& out, const at::Tensor& a, const at::Tensor& b) {
  if (std::optional<BmmPlan> plan = PlanBmm(a, b)) {
    BmmInto(*plan, a, b, out);
  } else {
    at::bmm_out(out, a, b);
  }
}

}  // namespace

SelfAttention::SelfAttention(int64_t width, int64_t heads, at::Tensor qkv_weight,
                             at::Tensor qkv_bias, at::Tensor proj_weight, at::Tensor proj_bias)
    : width_(width),
      heads_(heads),
      qkv_bias_(std::move(qkv_bias)),
      qkv_(std::move(qkv_weight), at::Tensor()),
      proj_(std::move(proj_weight), std::move(proj_bias)) {}

void SelfAttention::Run(const float* x, const PackedSequences& sequences, const at::Tensor& padding,
                        float* out) {
  // The workspace's tensors never leave this thread or this call.
  c10::InferenceMode inference;
  Workspace& ws = ThreadWorkspace();
  const int64_t d = width_, heads = heads_, head_width = d / heads, rows = sequences.rows;
  const int64_t longest = sequences.longest;
  Reserve(ws.qkv, rows * 3 * d);
  Reserve(ws.q_k_v, rows * 3 * d);
  Reserve(ws.scores, heads * longest * longest);
  Reserve(ws.context, longest * d);
  Reserve(ws.merged, rows * d);
  qkv_.Run(x, rows, ws.qkv.data_ptr<float>());
  for (size_t i = 0; i < sequences.lengths.size(); ++i) {
    const int64_t n = sequences.lengths[i], first = sequences.starts[i];
    // q, k, v of this sequence as [heads, n, head width], q scaled.
    const int64_t base = 3 * first * d, block = heads * n * head_width;
    SplitHeads(ws.qkv.data_ptr<float>() + first * 3 * d, qkv_bias_.data_ptr<float>(), 1, n, d,
               heads, ws.q_k_v.data_ptr<float>() + base);
    const at::Tensor q =
        ws.q_k_v.as_strided({heads, n, head_width}, {n * head_width, head_width, 1}, base);
    const at::Tensor k_transposed =
        ws.q_k_v.as_strided({heads, head_width, n}, {n * head_width, 1, head_width}, base + block);
    const at::Tensor v = ws.q_k_v.as_strided({heads, n, head_width},
                                             {n * head_width, head_width, 1}, base + 2 * block);
    at::Tensor scores = ws.scores.as_strided({heads, n, n}, {n * n, n, 1}, 0);
    at::Tensor context =
        ws.context.as_strided({heads, n, head_width}, {n * head_width, head_width, 1}, 0);
    BatchedProduct(scores, q, k_transposed);
    if (padding.defined()) {
      const at::Tensor keys = padding.select(0, static_cast<int64_t>(i)).view({1, 1, 1, n});
      scores.copy_(
          at::_masked_softmax(scores.unsqueeze(0), keys.expand({1, heads, n, n}), 3, 1).squeeze(0));
    } else {
      SoftmaxLastDimInto(scores, scores);
    }
    BatchedProduct(context, scores, v);
    MergeHeads(context.data_ptr<float>(), 1, n, d, heads, ws.merged.data_ptr<float>() + first * d);
  }
  proj_.Run(ws.merged.data_ptr<float>(), rows, out);
}

void DenseSequences(int64_t batch, int64_t tokens, int64_t width, PackedSequences& sequences) {
  sequences.lengths.assign(batch, tokens);
  sequences.starts.resize(batch);
  for (int64_t b = 0; b < batch; ++b) sequences.starts[b] = b * tokens;
  sequences.rows = batch * tokens;
  sequences.width = width;
  sequences.longest = tokens;
  sequences.sizes = nullptr;
  sequences.buffer.reset();
}

}  // namespace ops
}  // namespace static_runtime
