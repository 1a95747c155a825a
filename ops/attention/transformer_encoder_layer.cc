// The native kernel of static_runtime::transformer_encoder_layer
// (passes/prepack_weights.h): ATen's transformer encoder layer (aten::
// _transformer_encoder_layer_fwd, the fast path of nn.TransformerEncoderLayer
// in eval mode) step by step, as ATen 1.13 computes it, with its four matrix
// products (the qkv and output projections, the two feed-forward linears) on
// oneDNN with the frozen weights pre-packed (ops/linalg/onednn_matmul.h); the
// rest with ATen's arithmetic and bits: the bias and scaling of q, k, v,
// the merge of the heads, the residual adds and relu as loops of our own
// (ops/attention/attention_steps.h); q k^T and times v as ATen's per-batch gemm calls
// (ops/linalg/batched_gemm.h); softmax and the layer norms with ATen's bits by
// faster kernels (ops/nn/softmax_rows.h, ops/nn/layer_norm_rows.h); gelu as
// ops/activations/epilogue_activations.h's (within the declared bound, 1.5x
// faster than ATen's).
//
// Measured on a 2-layer nn.TransformerEncoder (width 64, 4 heads,
// feed-forward 128, batch 4 x 16 tokens), one thread: see the README.
//
// It takes a dense [B, T, D] float source, with or without a key padding
// mask ([B, T], mask type 1: each sequence's masked softmax is ATen's own,
// so a sequence whose keys are all masked comes out NaN as ATen's does),
// and a nested source (nn.TransformerEncoder's fast path with a padding
// mask, ops/attention/nested_sequences.h): each sequence's tokens alone,
// into a nested result of the same sizes. The attention is
// ops/attention/self_attention.h's. Inputs it does not take (an attention mask, a
// source that is not float or not of width D, weights of unexpected
// shapes) run ATen's op, which gives its result or error. Numerics: another
// summation order in the products; the bound is
// TransformerEncoderLayerErrorBound (ops/attention/attention_error_bounds.h).
//
// static_runtime::transformer_encoder_layer_row (passes/prune_encoder_rows.h)
// is the same kernel asked for one token of each sequence: the q, k, v
// projection of every token, and only that token's attention, output
// projection, residuals, norms and feed-forward; the other tokens of the
// result are 0, as KeepSequenceRow (ir/operators/operators.h) makes them.
#include <algorithm>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "ATen/ATen.h"
#include "c10/core/InferenceMode.h"
#include "ir/operators/operators.h"
#include "ops/activations/clamp_in_place.h"
#include "ops/activations/epilogue_activations.h"
#include "ops/attention/attention_error_bounds.h"
#include "ops/attention/attention_steps.h"
#include "ops/attention/nested_sequences.h"
#include "ops/attention/self_attention.h"
#include "ops/core/out_variant.h"
#include "ops/core/registry.h"
#include "ops/linalg/onednn_matmul.h"
#include "ops/nn/layer_norm_rows.h"
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
  // `row`: the token of each sequence to compute (transformer_encoder_layer_row's).
  EncoderLayerKernel(LayerParams params, std::optional<int64_t> row)
      : p_(std::move(params)),
        row_(row),
        attention_(p_.width, p_.heads, p_.qkv_weight, p_.qkv_bias, p_.proj_weight, p_.proj_bias),
        ffn_1_(p_.ffn_weight_1, p_.ffn_bias_1),
        ffn_2_(p_.ffn_weight_2, p_.ffn_bias_2) {}

  void operator()(NodeIO& io) {
    const at::Tensor& src = io.Input(0).toTensor();
    if (src.is_nested()) {
      RunNested(io, src);
      return;
    }
    const c10::optional<at::Tensor> mask = io.Input(18).toOptional<at::Tensor>();
    if (!src.is_cpu() || src.layout() != at::kStrided || src.scalar_type() != at::kFloat ||
        src.dim() != 3 || src.size(2) != p_.width || src.numel() == 0 || src.is_neg() ||
        src.is_conj() ||
        (mask && !ops::IsKeyPaddingMask(*mask, io.Input(19).toOptional<int64_t>(), src))) {
      io.Output(0) = Reference(io);
      return;
    }
    const at::Tensor x = src.contiguous();
    at::Tensor& out = ReusableOrNewOutput(io, 0, at::kFloat);
    if (!out.sizes().equals(x.sizes()) || !out.is_contiguous()) out.resize_(x.sizes());
    Workspace& ws = ThreadWorkspace();
    ops::DenseSequences(x.size(0), x.size(1), p_.width, ws.sequences);
    Compute(ws, x.data_ptr<float>(), out.data_ptr<float>(), ops::BooleanKeyPaddingMask(mask));
  }

 private:
  // A nested source (the fast path of nn.TransformerEncoder with a padding
  // mask): the layer on its sequences' tokens only, into a nested result of
  // the same sizes, as ATen computes it on nested tensors.
  void RunNested(NodeIO& io, const at::Tensor& src) {
    Workspace& ws = ThreadWorkspace();
    if (!io.Input(18).isNone() || !ops::ReadSequences(src, at::kFloat, ws.sequences) ||
        ws.sequences.width != p_.width) {
      io.Output(0) = Reference(io);
      return;
    }
    at::Tensor result = at::empty({ws.sequences.rows * p_.width}, at::kFloat);
    Compute(ws, ws.sequences.buffer.data_ptr<float>(), result.data_ptr<float>(), at::Tensor());
    ws.sequences.buffer.reset();  // the thread keeps no reference to the caller's tensor
    io.Output(0) = ops::NestedLike(src, std::move(result));
  }

  // The layer's intermediates: per-thread tensors, reused from call to call
  // and resized only when the token count grows, so a layer allocates
  // nothing once warm.
  struct Workspace {
    ops::PackedSequences sequences;  // the source's sequences, as rows
    at::Tensor normed, attended, hidden, ffn_out, mean, rstd;
    // With a row: the token of each sequence (or -1), the rows of the
    // source they are, and the source's and the result's rows gathered.
    std::vector<int64_t> query_rows, source_rows;
    at::Tensor gathered, computed;
  };
  static Workspace& ThreadWorkspace() {
    thread_local Workspace workspace;
    return workspace;
  }
  static void Size(at::Tensor& tensor, at::IntArrayRef sizes) {
    if (!tensor.defined()) tensor = at::empty({0}, at::kFloat);
    if (!tensor.sizes().equals(sizes)) tensor.resize_(sizes);
  }

  // Sizes `ws` for its sequences, and with a row, picks each sequence's
  // token: row counts from the end of the longest sequence when negative
  // (the padded result's token, which a shorter sequence may not have).
  void Shape(Workspace& ws) const {
    const int64_t rows = ws.sequences.rows, d = p_.width;
    for (at::Tensor* t : {&ws.normed, &ws.attended, &ws.ffn_out}) Size(*t, {rows, d});
    Size(ws.hidden, {rows, ffn_1_.out_features()});
    Size(ws.mean, {rows});
    Size(ws.rstd, {rows});
    if (!row_) return;
    const int64_t count = ws.sequences.lengths.size();
    const int64_t token = ops::SequenceToken(*row_, ws.sequences.longest);
    ws.query_rows.assign(count, -1);
    ws.source_rows.clear();
    for (int64_t i = 0; i < count; ++i) {
      if (token < 0 || token >= ws.sequences.lengths[i]) continue;
      ws.query_rows[i] = token;
      ws.source_rows.push_back(ws.sequences.starts[i] + token);
    }
    const int64_t asked = ws.source_rows.size();
    Size(ws.gathered, {asked, d});
    Size(ws.computed, {asked, d});
  }

  // Layer norm of the first `rows` rows of `x` [*, D] (contiguous) into
  // `out` (as many rows, contiguous).
  void Norm(Workspace& ws, int64_t rows, const at::Tensor& x, const at::Tensor& weight,
            const at::Tensor& bias, at::Tensor& out) const {
    ops::FastLayerNormInto(x, weight, bias, rows, p_.width, p_.eps, out, ws.mean, ws.rstd);
  }

  // The layer on `src` (the rows of `ws.sequences`, contiguous) into
  // `result` (as many rows), as ATen 1.13 computes it; with a row, that
  // token of each sequence and 0 for the others.
  void Compute(Workspace& ws, const float* src, float* result, const at::Tensor& padding) {
    // The workspace's tensors never leave this thread or this call.
    c10::InferenceMode inference;
    Shape(ws);
    const int64_t all_rows = ws.sequences.rows, d = p_.width;
    const at::Tensor source = at::from_blob(const_cast<float*>(src), {all_rows, d}, at::kFloat);
    const at::Tensor* x = &source;
    if (p_.norm_first) {
      Norm(ws, all_rows, source, p_.norm_weight_1, p_.norm_bias_1, ws.normed);
      x = &ws.normed;
    }

    if (!row_) {
      attention_.Run(x->data_ptr<float>(), ws.sequences, padding, ws.attended.data_ptr<float>());
      FeedForward(ws, all_rows, src, result);
      return;
    }
    // One token of each sequence (or none): from the attention on, those
    // rows alone, gathered; then scattered into a result of zeros.
    const int64_t rows = ws.source_rows.size();
    float* gathered = ws.gathered.data_ptr<float>();
    for (int64_t i = 0; i < rows; ++i) {
      std::copy_n(src + ws.source_rows[i] * d, d, gathered + i * d);
    }
    attention_.RunQueryRows(x->data_ptr<float>(), ws.sequences, padding, ws.query_rows,
                            ws.attended.data_ptr<float>());
    float* computed = ws.computed.data_ptr<float>();
    if (rows > 0) FeedForward(ws, rows, gathered, computed);
    std::fill_n(result, all_rows * d, 0.0f);
    for (int64_t i = 0; i < rows; ++i) {
      std::copy_n(computed + i * d, d, result + ws.source_rows[i] * d);
    }
  }

  // The rest of the layer on `rows` rows: `ws.attended` (the attention's
  // result) plus `residual` (the source), norms and feed-forward, into
  // `result`.
  void FeedForward(Workspace& ws, int64_t rows, const float* residual, float* result) {
    const int64_t d = p_.width;
    ops::AddInPlace(ws.attended.data_ptr<float>(), residual, rows * d);
    at::Tensor* attended = &ws.attended;
    if (!p_.norm_first) {
      Norm(ws, rows, ws.attended, p_.norm_weight_1, p_.norm_bias_1, ws.normed);
      attended = &ws.normed;
    }

    // Feed-forward; the last step writes `result`.
    const at::Tensor* ffn_input = attended;
    if (p_.norm_first) {
      Norm(ws, rows, *attended, p_.norm_weight_2, p_.norm_bias_2, ws.normed);
      ffn_input = &ws.normed;
    }
    ffn_1_.Run(ffn_input->data_ptr<float>(), rows, ws.hidden.data_ptr<float>());
    const int64_t hidden = rows * ffn_1_.out_features();
    if (p_.use_gelu) {
      ops::GeluInPlace(ws.hidden.data_ptr<float>(), hidden);
    } else {
      ops::ReluInPlace(ws.hidden.data_ptr<float>(), hidden);
    }
    if (p_.norm_first) {
      ffn_2_.Run(ws.hidden.data_ptr<float>(), rows, result);
      ops::AddInPlace(result, attended->data_ptr<float>(), rows * d);
    } else {
      ffn_2_.Run(ws.hidden.data_ptr<float>(), rows, ws.ffn_out.data_ptr<float>());
      ops::AddInPlace(ws.ffn_out.data_ptr<float>(), attended->data_ptr<float>(), rows * d);
      at::Tensor out = at::from_blob(result, {rows, d}, at::kFloat);
      Norm(ws, rows, ws.ffn_out, p_.norm_weight_2, p_.norm_bias_2, out);
    }
  }

  at::Tensor Reference(const NodeIO& io) const {
    at::Tensor layer = at::_transformer_encoder_layer_fwd(
        io.Input(0).toTensor(), p_.width, p_.heads, p_.qkv_weight, p_.qkv_bias, p_.proj_weight,
        p_.proj_bias, p_.use_gelu, p_.norm_first, p_.eps, p_.norm_weight_1, p_.norm_bias_1,
        p_.norm_weight_2, p_.norm_bias_2, p_.ffn_weight_1, p_.ffn_bias_1, p_.ffn_weight_2,
        p_.ffn_bias_2, io.Input(18).toOptional<at::Tensor>(), io.Input(19).toOptional<int64_t>());
    return row_ ? ops::KeepSequenceRow(layer, *row_) : layer;
  }

  const LayerParams p_;
  const std::optional<int64_t> row_;
  ops::SelfAttention attention_;
  onednn::PackedLinear ffn_1_, ffn_2_;
};

KernelOffer MakeEncoderLayerKernel(const torch::jit::Node* node) {
  std::optional<LayerParams> params = ReadParams(node);
  if (!params) return Decline();
  std::optional<int64_t> row;
  if (node->kind() == ops::kTransformerEncoderLayerRow) {
    c10::optional<c10::IValue> constant = torch::jit::toIValue(node->input(20));
    if (!constant || !constant->isInt()) return Decline();
    row = constant->toInt();
  }
  auto kernel = std::make_shared<EncoderLayerKernel>(*std::move(params), row);
  return [kernel](NodeIO& io) { (*kernel)(io); };
}

}  // namespace

void RegisterTransformerEncoderLayerKernels(KernelRegistry& registry) {
  for (const char* op : {"static_runtime::transformer_encoder_layer",
                         "static_runtime::transformer_encoder_layer_row"}) {
    registry.Add({KernelOp::Overload(op, ""), NodeKind::kOutVariant, MakeEncoderLayerKernel,
                  ops::TransformerEncoderLayerErrorBound});
  }
}

}  // namespace static_runtime
