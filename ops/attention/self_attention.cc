#include "ops/attention/self_attention.h"

#include <array>
#include <optional>
#include <utility>

#include "c10/core/InferenceMode.h"
#include "execution/product_clock.h"
#include "ops/attention/attention_steps.h"
#include "ops/linalg/batched_gemm.h"
#include "ops/nn/softmax_rows.h"

namespace static_runtime {
namespace ops {
namespace {

// A group of `count` sequences of `n` tokens each, whose rows start at
// `first`, of an attention of `width` and `heads` (every attention of the
// thread shares the workspace): the views of the workspace its products
// read and write, and their gemm plans, made once per shape.
struct GroupViews {
  std::array<int64_t, 5> key{};  // first, count, n, width, heads; all 0: not made
  at::Tensor q, k_transposed, v, scores, context;
  std::optional<BmmPlan> scores_plan, context_plan;
};

// The attention's intermediates, per thread.
struct Workspace {
  at::Tensor qkv, q_k_v, scores, context, merged;
  GroupViews uniform;  // the views of the last batch of equal sequences
};

Workspace& ThreadWorkspace() {
  thread_local Workspace workspace;
  return workspace;
}

// `tensor` as a float tensor of at least `elements` elements; false when
// that moved its data (views made before then are stale).
bool Reserve(at::Tensor& tensor, int64_t elements) {
  if (!tensor.defined()) tensor = at::empty({0}, at::kFloat);
  if (tensor.numel() >= elements) return true;
  tensor.resize_({elements});
  return false;
}

// at::bmm_out(out, a, b) into `out` (contiguous, of the product's size),
// with ATen's own per-batch gemm calls made directly where it makes them
// (`plan`, PlanBmm's for these operands).
void BatchedProduct(const std::optional<BmmPlan>& plan, at::Tensor& out, const at::Tensor& a,
                    const at::Tensor& b) {
  const ProductScope product(a.size(0), a.size(1), a.size(2), b.size(2));
  if (plan) {
    BmmInto(*plan, a, b, out);
  } else {
    at::bmm_out(out, a, b);
  }
}

// Softmax of one sequence's `scores` [heads, queries, keys] in place over
// the keys: ATen's masked softmax with row `sequence` of the key padding
// mask `padding` when there is one, else ATen's softmax (FastSoftmaxLastDimInto).
void ScoresSoftmax(const at::Tensor& padding, int64_t sequence, at::Tensor& scores) {
  if (!padding.defined()) {
    FastSoftmaxLastDimInto(scores, scores);
    return;
  }
  const int64_t keys = scores.size(2);
  const at::Tensor masked = padding.select(0, sequence).view({1, 1, 1, keys});
  scores.copy_(at::_masked_softmax(scores.unsqueeze(0),
                                   masked.expand({1, scores.size(0), scores.size(1), keys}), 3, 1)
                   .squeeze(0));
}

// q, k^T and v of `count` sequences of `n` tokens whose rows start at
// `first`, as SplitHeads lays them out in `q_k_v`: [3, count, heads, n,
// head width] from row `first`; each [count * heads, n, head width] (k^T
// transposed).
struct HeadViews {
  at::Tensor q, k_transposed, v;
};
HeadViews ViewHeads(const at::Tensor& q_k_v, int64_t first, int64_t count, int64_t n, int64_t width,
                    int64_t heads) {
  const int64_t head_width = width / heads, matrices = count * heads;
  const int64_t base = 3 * first * width, block = matrices * n * head_width;
  return {
      q_k_v.as_strided({matrices, n, head_width}, {n * head_width, head_width, 1}, base),
      q_k_v.as_strided({matrices, head_width, n}, {n * head_width, 1, head_width}, base + block),
      q_k_v.as_strided({matrices, n, head_width}, {n * head_width, head_width, 1},
                       base + 2 * block)};
}

// The views of `ws` for a group (see GroupViews).
void MakeGroupViews(Workspace& ws, int64_t first, int64_t count, int64_t n, int64_t width,
                    int64_t heads, GroupViews& views) {
  const int64_t head_width = width / heads, matrices = count * heads;
  HeadViews head_views = ViewHeads(ws.q_k_v, first, count, n, width, heads);
  views.q = std::move(head_views.q);
  views.k_transposed = std::move(head_views.k_transposed);
  views.v = std::move(head_views.v);
  views.scores = ws.scores.as_strided({matrices, n, n}, {n * n, n, 1}, 0);
  views.context =
      ws.context.as_strided({matrices, n, head_width}, {n * head_width, head_width, 1}, 0);
  views.scores_plan = PlanBmm(views.q, views.k_transposed);
  views.context_plan = PlanBmm(views.scores, views.v);
  views.key = {first, count, n, width, heads};
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
  const int64_t d = width_, rows = sequences.rows, count = sequences.lengths.size();
  const int64_t longest = sequences.longest;
  // Sequences of one length and no mask: one group, as ATen's batched
  // products take them; else each sequence alone.
  const bool uniform = !padding.defined() && longest * count == rows;
  const int64_t group = uniform ? count : 1;
  bool kept = Reserve(ws.qkv, rows * 3 * d);
  kept = Reserve(ws.q_k_v, rows * 3 * d) && kept;
  kept = Reserve(ws.scores, group * heads_ * longest * longest) && kept;
  kept = Reserve(ws.context, group * longest * d) && kept;
  kept = Reserve(ws.merged, rows * d) && kept;
  if (!kept) ws.uniform.key = {};
  qkv_.Run(x, rows, ws.qkv.data_ptr<float>());
  for (int64_t i = 0; i < count; i += group) {
    const int64_t n = sequences.lengths[i], first = sequences.starts[i];
    GroupViews single;
    GroupViews& views = uniform ? ws.uniform : single;
    if (views.key != std::array<int64_t, 5>{first, group, n, d, heads_}) {
      MakeGroupViews(ws, first, group, n, d, heads_, views);
    }
    // q, k, v as [group * heads, n, head width], q scaled.
    SplitHeads(ws.qkv.data_ptr<float>() + first * 3 * d, qkv_bias_.data_ptr<float>(), group, n, d,
               heads_, ws.q_k_v.data_ptr<float>() + 3 * first * d);
    BatchedProduct(views.scores_plan, views.scores, views.q, views.k_transposed);
    ScoresSoftmax(padding, i, views.scores);
    BatchedProduct(views.context_plan, views.context, views.scores, views.v);
    MergeHeads(views.context.data_ptr<float>(), group, n, d, heads_,
               ws.merged.data_ptr<float>() + first * d);
  }
  proj_.Run(ws.merged.data_ptr<float>(), rows, out);
}

void SelfAttention::RunQueryRows(const float* x, const PackedSequences& sequences,
                                 const at::Tensor& padding, const std::vector<int64_t>& query_rows,
                                 float* out) {
  c10::InferenceMode inference;
  Workspace& ws = ThreadWorkspace();
  const int64_t d = width_, rows = sequences.rows, count = sequences.lengths.size();
  const int64_t head_width = d / heads_, longest = sequences.longest;
  bool kept = Reserve(ws.qkv, rows * 3 * d);
  kept = Reserve(ws.q_k_v, rows * 3 * d) && kept;
  kept = Reserve(ws.scores, heads_ * longest) && kept;
  kept = Reserve(ws.context, d) && kept;
  kept = Reserve(ws.merged, count * d) && kept;
  if (!kept) ws.uniform.key = {};
  qkv_.Run(x, rows, ws.qkv.data_ptr<float>());
  int64_t asked = 0;
  for (int64_t i = 0; i < count; ++i) {
    const int64_t row = query_rows[i], n = sequences.lengths[i], first = sequences.starts[i];
    if (row < 0) continue;
    SplitHeads(ws.qkv.data_ptr<float>() + first * 3 * d, qkv_bias_.data_ptr<float>(), 1, n, d,
               heads_, ws.q_k_v.data_ptr<float>() + 3 * first * d);
    const HeadViews views = ViewHeads(ws.q_k_v, first, 1, n, d, heads_);
    const at::Tensor q = views.q.narrow(1, row, 1);  // the token's
    const at::Tensor& k_transposed = views.k_transposed;
    const at::Tensor& v = views.v;
    at::Tensor scores = ws.scores.as_strided({heads_, 1, n}, {n, n, 1}, 0);
    at::Tensor context =
        ws.context.as_strided({heads_, 1, head_width}, {head_width, head_width, 1}, 0);
    BatchedProduct(PlanBmm(q, k_transposed), scores, q, k_transposed);
    ScoresSoftmax(padding, i, scores);
    BatchedProduct(PlanBmm(scores, v), context, scores, v);
    MergeHeads(context.data_ptr<float>(), 1, 1, d, heads_, ws.merged.data_ptr<float>() + asked * d);
    ++asked;
  }
  if (asked > 0) proj_.Run(ws.merged.data_ptr<float>(), asked, out);
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

bool IsKeyPaddingMask(const at::Tensor& mask, c10::optional<int64_t> mask_type,
                      const at::Tensor& x) {
  return mask_type == 1 && mask.is_cpu() && mask.layout() == at::kStrided && !mask.is_nested() &&
         (mask.scalar_type() == at::kBool || at::isFloatingType(mask.scalar_type())) &&
         mask.dim() == 2 && mask.size(0) == x.size(0) && mask.size(1) == x.size(1);
}

at::Tensor BooleanKeyPaddingMask(const c10::optional<at::Tensor>& mask) {
  if (!mask) return at::Tensor();
  return mask->scalar_type() == at::kBool ? *mask : mask->to(at::kBool);
}

}  // namespace ops
}  // namespace static_runtime
