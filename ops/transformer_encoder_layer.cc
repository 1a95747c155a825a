// The native kernel of static_runtime::transformer_encoder_layer
// (passes/prepack_weights.h): ATen's transformer encoder layer (aten::
// _transformer_encoder_layer_fwd, the fast path of nn.TransformerEncoderLayer
// in eval mode) step by step, as ATen 1.13 computes it, with its four matrix
// products (the qkv and output projections, the two feed-forward linears) on
// oneDNN with the frozen weights pre-packed (ops/onednn_matmul.h); the
// rest with ATen's arithmetic and bits: the bias and scaling of q, k, v,
// the merge of the heads, the residual adds and relu as loops of our own
// (ops/attention_steps.h); q k^T and times v as ATen's per-batch gemm calls
// (ops/batched_gemm.h); softmax and the layer norms as ATen's kernels called
// directly (ops/cpu_kernels.h); gelu as ATen's op.
//
// Measured on a 2-layer nn.TransformerEncoder (width 64, 4 heads,
// feed-forward 128, batch 4 x 16 tokens), one thread: see the README.
//
// Inputs it does not take (a mask, a source that is not a non-empty float
// [B, T, D] tensor, weights of unexpected shapes) run ATen's op, which gives
// its result or error. Numerics: another summation order in the products;
// the bound is TransformerEncoderLayerErrorBound (ops/error_bounds.h).
#include <array>
#include <memory>
#include <optional>
#include <utility>

#include "ATen/ATen.h"
#include "c10/core/InferenceMode.h"
#include "ir/operators/operators.h"
#include "ops/attention_steps.h"
#include "ops/batched_gemm.h"
#include "ops/cpu_kernels.h"
#include "ops/error_bounds.h"
#include "ops/onednn_matmul.h"
#include "ops/out_variant.h"
#include "ops/registry.h"
#include "torch/csrc/jit/ir/constants.h"

namespace static_runtime {
namespace {

// The layer's constant arguments (inputs 1-17).
struct LayerParams {
  int64_t width = 0;  // D
  int64_t heads = 0;
  bool use_gelu = false;
  bool norm_first = false;
  double eps = 0;
  at::Tensor qkv_weight, qkv_bias, proj_weight, proj_bias;
  at::Tensor norm_weight_1, norm_bias_1, norm_weight_2, norm_bias_2;
  at::Tensor ffn_weight_1, ffn_bias_1, ffn_weight_2, ffn_bias_2;
};

// nullopt unless every constant argument has the shape the kernel needs
// (ATen's op then runs and checks them itself).
std::optional<LayerParams> ReadParams(const torch::jit::Node* node) {
  std::vector<c10::IValue> constants(18);
  for (size_t i = 1; i < 18; ++i) {
    c10::optional<c10::IValue> value = torch::jit::toIValue(node->input(i));
    if (!value) return std::nullopt;
    constants[i] = *std::move(value);
  }
  auto tensor = [&](size_t i) { return constants[i].toTensor().contiguous(); };
  LayerParams p;
  p.width = constants[1].toInt();
  p.heads = constants[2].toInt();
  p.use_gelu = constants[7].toBool();
  p.norm_first = constants[8].toBool();
  p.eps = constants[9].toDouble();
  p.qkv_weight = tensor(3), p.qkv_bias = tensor(4);
  p.proj_weight = tensor(5), p.proj_bias = tensor(6);
  p.norm_weight_1 = tensor(10), p.norm_bias_1 = tensor(11);
  p.norm_weight_2 = tensor(12), p.norm_bias_2 = tensor(13);
  p.ffn_weight_1 = tensor(14), p.ffn_bias_1 = tensor(15);
  p.ffn_weight_2 = tensor(16), p.ffn_bias_2 = tensor(17);
  const int64_t d = p.width;
  if (d <= 0 || p.heads <= 0 || d % p.heads != 0) return std::nullopt;
  const int64_t f = p.ffn_weight_1.size(0);
  auto is = [](const at::Tensor& t, std::initializer_list<int64_t> sizes) {
    return t.scalar_type() == at::kFloat && t.sizes() == at::IntArrayRef(sizes);
  };
  if (f <= 0 || !is(p.qkv_weight, {3 * d, d}) || !is(p.qkv_bias, {3 * d}) ||
      !is(p.proj_weight, {d, d}) || !is(p.proj_bias, {d}) || !is(p.norm_weight_1, {d}) ||
      !is(p.norm_bias_1, {d}) || !is(p.norm_weight_2, {d}) || !is(p.norm_bias_2, {d}) ||
      !is(p.ffn_weight_1, {f, d}) || !is(p.ffn_bias_1, {f}) || !is(p.ffn_weight_2, {d, f}) ||
      !is(p.ffn_bias_2, {d})) {
    return std::nullopt;
  }
  return p;
}

class EncoderLayerKernel {
 public:
  explicit EncoderLayerKernel(LayerParams params)
      : p_(std::move(params)),
        qkv_(p_.qkv_weight, at::Tensor()),  // ATen adds the bias with the scaling
        proj_(p_.proj_weight, p_.proj_bias),
        ffn_1_(p_.ffn_weight_1, p_.ffn_bias_1),
        ffn_2_(p_.ffn_weight_2, p_.ffn_bias_2) {}

  void operator()(NodeIO& io) {
    const at::Tensor& src = io.Input(0).toTensor();
    if (!io.Input(18).isNone() || src.is_nested() || !src.is_cpu() ||
        src.layout() != at::kStrided || src.scalar_type() != at::kFloat || src.dim() != 3 ||
        src.size(2) != p_.width || src.numel() == 0 || src.is_neg() || src.is_conj()) {
      io.Output(0) = Reference(io);
      return;
    }
    const at::Tensor x = src.contiguous();
    at::Tensor& out = ReusableOrNewOutput(io, 0, at::kFloat);
    if (!out.sizes().equals(x.sizes()) || !out.is_contiguous()) out.resize_(x.sizes());
    Compute(x, out);
  }

 private:
  // The layer's intermediates: per-thread tensors, reused from call to call
  // and resized (with their views and product plans remade) only when the
  // shape changes, so a layer allocates nothing once warm.
  struct Workspace {
    // batch, tokens, width, heads, feed-forward width: what the tensors
    // below are sized for.
    std::array<int64_t, 5> shape{};
    at::Tensor normed, qkv, q_k_v, scores, context, merged, attended, hidden, ffn_out, mean, rstd;
    at::Tensor q, k_transposed, v;  // views of q_k_v, [B * heads, T, head width] (k: T <-> width)
    std::optional<BmmPlan> scores_plan, context_plan;
  };
  static Workspace& ThreadWorkspace() {
    thread_local Workspace workspace;
    return workspace;
  }
  static void Size(at::Tensor& tensor, at::IntArrayRef sizes) {
    if (!tensor.defined()) tensor = at::empty({0}, at::kFloat);
    tensor.resize_(sizes);
  }

  // Sizes `ws` for a [batch, tokens, width] source.
  void Shape(Workspace& ws, int64_t batch, int64_t tokens) const {
    const int64_t ffn_width = ffn_1_.out_features();
    const std::array<int64_t, 5> shape{batch, tokens, p_.width, p_.heads, ffn_width};
    if (ws.shape == shape) return;
    ws.shape = {};  // until every tensor is sized
    const int64_t d = p_.width, matrices = batch * p_.heads, head_width = d / p_.heads;
    for (at::Tensor* t : {&ws.normed, &ws.merged, &ws.attended, &ws.ffn_out}) {
      Size(*t, {batch, tokens, d});
    }
    Size(ws.qkv, {batch, tokens, 3 * d});
    Size(ws.hidden, {batch, tokens, ffn_width});
    Size(ws.q_k_v, {3, matrices, tokens, head_width});
    Size(ws.scores, {matrices, tokens, tokens});
    Size(ws.context, {matrices, tokens, head_width});
    Size(ws.mean, {batch * tokens});
    Size(ws.rstd, {batch * tokens});
    ws.q = ws.q_k_v[0];
    ws.k_transposed = ws.q_k_v[1].transpose(1, 2);
    ws.v = ws.q_k_v[2];
    ws.scores_plan = PlanBmm(ws.q, ws.k_transposed);
    ws.context_plan = PlanBmm(ws.scores, ws.v);
    ws.shape = shape;
  }

  // Layer norm of `x` [B, T, D] contiguous into `out` (same shape, contiguous).
  void Norm(Workspace& ws, const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias,
            at::Tensor& out) const {
    LayerNormInto(x, weight, bias, ws.mean.numel(), p_.width, p_.eps, out, ws.mean, ws.rstd);
  }

  // at::bmm_out(out, a, b) into `out` (contiguous, of the product's size),
  // with ATen's own per-batch gemm calls made directly where it makes them
  // (ops/batched_gemm.h).
  static void BatchedProduct(const std::optional<BmmPlan>& plan, at::Tensor& out,
                             const at::Tensor& a, const at::Tensor& b) {
    if (plan) {
      BmmInto(*plan, a, b, out);
    } else {
      at::bmm_out(out, a, b);
    }
  }

  // `x` [B, T, K] contiguous through `linear` into `out` [B, T, N] (contiguous).
  static void Linear(onednn::PackedLinear& linear, const at::Tensor& x, at::Tensor& out) {
    linear.Run(x.data_ptr<float>(), x.size(0) * x.size(1), out.data_ptr<float>());
  }

  // The layer on `src` [B, T, D] contiguous into `result` (same shape,
  // contiguous), as ATen 1.13 computes it.
  void Compute(const at::Tensor& src, at::Tensor& result) {
    // The workspace's tensors never leave this thread or this call.
    c10::InferenceMode inference;
    Workspace& ws = ThreadWorkspace();
    const int64_t batch = src.size(0), tokens = src.size(1);
    Shape(ws, batch, tokens);
    const at::Tensor* x = &src;
    if (p_.norm_first) {
      Norm(ws, src, p_.norm_weight_1, p_.norm_bias_1, ws.normed);
      x = &ws.normed;
    }

    // Self-attention: q, k, v as [B * heads, T, head width], q scaled.
    Linear(qkv_, *x, ws.qkv);
    ops::SplitHeads(ws.qkv.data_ptr<float>(), p_.qkv_bias.data_ptr<float>(), batch, tokens,
                    p_.width, p_.heads, ws.q_k_v.data_ptr<float>());
    BatchedProduct(ws.scores_plan, ws.scores, ws.q, ws.k_transposed);
    SoftmaxLastDimInto(ws.scores, ws.scores);
    BatchedProduct(ws.context_plan, ws.context, ws.scores, ws.v);
    ops::MergeHeads(ws.context.data_ptr<float>(), batch, tokens, p_.width, p_.heads,
                    ws.merged.data_ptr<float>());
    Linear(proj_, ws.merged, ws.attended);
    ops::AddInPlace(ws.attended.data_ptr<float>(), src.data_ptr<float>(), src.numel());
    at::Tensor* attended = &ws.attended;
    if (!p_.norm_first) {
      Norm(ws, ws.attended, p_.norm_weight_1, p_.norm_bias_1, ws.normed);
      attended = &ws.normed;
    }

    // Feed-forward; the last step writes `result`.
    const at::Tensor* ffn_input = attended;
    if (p_.norm_first) {
      Norm(ws, *attended, p_.norm_weight_2, p_.norm_bias_2, ws.normed);
      ffn_input = &ws.normed;
    }
    Linear(ffn_1_, *ffn_input, ws.hidden);
    if (p_.use_gelu) {
      at::gelu_(ws.hidden);
    } else {
      ops::ReluInPlace(ws.hidden.data_ptr<float>(), ws.hidden.numel());
    }
    if (p_.norm_first) {
      Linear(ffn_2_, ws.hidden, result);
      ops::AddInPlace(result.data_ptr<float>(), attended->data_ptr<float>(), result.numel());
    } else {
      Linear(ffn_2_, ws.hidden, ws.ffn_out);
      ops::AddInPlace(ws.ffn_out.data_ptr<float>(), attended->data_ptr<float>(),
                      ws.ffn_out.numel());
      Norm(ws, ws.ffn_out, p_.norm_weight_2, p_.norm_bias_2, result);
    }
  }

  at::Tensor Reference(const NodeIO& io) const {
    return at::_transformer_encoder_layer_fwd(
        io.Input(0).toTensor(), p_.width, p_.heads, p_.qkv_weight, p_.qkv_bias, p_.proj_weight,
        p_.proj_bias, p_.use_gelu, p_.norm_first, p_.eps, p_.norm_weight_1, p_.norm_bias_1,
        p_.norm_weight_2, p_.norm_bias_2, p_.ffn_weight_1, p_.ffn_bias_1, p_.ffn_weight_2,
        p_.ffn_bias_2, io.Input(18).toOptional<at::Tensor>(), io.Input(19).toOptional<int64_t>());
  }

  const LayerParams p_;
  onednn::PackedLinear qkv_, proj_, ffn_1_, ffn_2_;
};

KernelOffer MakeEncoderLayerKernel(const torch::jit::Node* node) {
  std::optional<LayerParams> params = ReadParams(node);
  if (!params) return Decline();
  auto kernel = std::make_shared<EncoderLayerKernel>(*std::move(params));
  return [kernel](NodeIO& io) { (*kernel)(io); };
}

const bool kRegistered = [] {
  ops::EnsureOperatorsRegistered();
  KernelRegistry::Global().RegisterOverload("static_runtime::transformer_encoder_layer", "",
                                            NodeKind::kOutVariant, MakeEncoderLayerKernel,
                                            ops::TransformerEncoderLayerErrorBound);
  return true;
}();

}  // namespace
}  // namespace static_runtime
