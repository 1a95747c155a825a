// The kernel of static_runtime::multi_head_attention (passes/
// prepack_weights.h): nn.MultiheadAttention's fast path in eval mode
// (aten::_native_multi_head_attention) with frozen weights, for self-
// attention (query, key and value the same tensor): ops/attention/
// self_attention.h, the projections pre-packed once. It takes a dense
// [B, T, D] float source, with or without a key padding mask ([B, T], mask
// type 1, boolean or floating as ATen takes it), and a nested one (each
// sequence's tokens alone, into a nested result of the same sizes). Anything
// else (another query, key and value; an attention mask; asked for the
// weights; a source that is not float or not of width D) runs ATen's op,
// with its result or its error. Numerics: the projections sum in another
// order; the bound is MultiHeadAttentionErrorBound (ops/attention/attention_error_bounds.h).
#include <memory>
#include <optional>
#include <utility>

#include "ATen/ATen.h"
#include "ir/operators/operators.h"
#include "ops/attention/attention_error_bounds.h"
#include "ops/attention/nested_sequences.h"
#include "ops/attention/self_attention.h"
#include "ops/core/out_variant.h"
#include "ops/core/registry.h"
#include "torch/csrc/jit/ir/constants.h"

namespace static_runtime {
namespace {

// ATen's op on the node's inputs: the kernel of aten::_native_multi_head_attention
// (without a stack), and what ours runs on what it does not take.
void Reference(NodeIO& io) {
  auto [output, weights] = at::_native_multi_head_attention(
      io.Input(0).toTensor(), io.Input(1).toTensor(), io.Input(2).toTensor(), io.Input(3).toInt(),
      io.Input(4).toInt(), io.Input(5).toTensor(), io.Input(6).toTensor(), io.Input(7).toTensor(),
      io.Input(8).toTensor(), io.Input(9).toOptional<at::Tensor>(), io.Input(10).toBool(),
      io.Input(11).toBool(), io.Input(12).toOptional<int64_t>());
  io.Output(0) = std::move(output);
  io.Output(1) = std::move(weights);
}

class MultiHeadAttentionKernel {
 public:
  MultiHeadAttentionKernel(int64_t width, int64_t heads, at::Tensor qkv_weight, at::Tensor qkv_bias,
                           at::Tensor proj_weight, at::Tensor proj_bias)
      : width_(width),
        attention_(width, heads, std::move(qkv_weight), std::move(qkv_bias), std::move(proj_weight),
                   std::move(proj_bias)) {}

  void operator()(NodeIO& io) {
    const at::Tensor& x = io.Input(0).toTensor();
    const bool self_attention = io.Input(1).toTensor().is_same(x) &&
                                io.Input(2).toTensor().is_same(x) && !io.Input(10).toBool();
    const c10::optional<at::Tensor> mask = io.Input(9).toOptional<at::Tensor>();
    thread_local ops::PackedSequences sequences;
    if (self_attention && x.is_nested() && !mask && ops::ReadSequences(x, at::kFloat, sequences) &&
        sequences.width == width_) {
      at::Tensor result = at::empty({sequences.rows * width_}, at::kFloat);
      attention_.Run(sequences.buffer.data_ptr<float>(), sequences, at::Tensor(),
                     result.data_ptr<float>());
      sequences.buffer.reset();  // the thread keeps no reference to the caller's tensor
      io.Output(0) = ops::NestedLike(x, std::move(result));
      io.Output(1) = at::Tensor();
      return;
    }
    if (!self_attention || !PlainCpuTensor(x) || x.scalar_type() != at::kFloat || x.dim() != 3 ||
        x.size(2) != width_ || x.numel() == 0 ||
        (mask && !ops::IsKeyPaddingMask(*mask, io.Input(12).toOptional<int64_t>(), x))) {
      Reference(io);
      return;
    }
    const at::Tensor source = x.contiguous();
    at::Tensor& out = ReusableOrNewOutput(io, 0, at::kFloat);
    if (!out.sizes().equals(source.sizes()) || !out.is_contiguous()) out.resize_(source.sizes());
    ops::DenseSequences(x.size(0), x.size(1), width_, sequences);
    attention_.Run(source.data_ptr<float>(), sequences, ops::BooleanKeyPaddingMask(mask),
                   out.data_ptr<float>());
    io.Output(1) = at::Tensor();
  }

 private:
  const int64_t width_;
  ops::SelfAttention attention_;
};

KernelOffer MakeMultiHeadAttentionKernel(const torch::jit::Node* node) {
  std::vector<c10::IValue> constants(9);
  for (size_t i : {3, 4, 5, 6, 7, 8}) {
    c10::optional<c10::IValue> value = torch::jit::toIValue(node->input(i));
    if (!value) return Decline();
    constants[i] = *std::move(value);
  }
  if (!constants[3].isInt() || !constants[4].isInt()) return Decline();
  const int64_t width = constants[3].toInt(), heads = constants[4].toInt();
  if (width <= 0 || heads <= 0 || width % heads != 0) return Decline();
  auto is = [&](size_t i, std::initializer_list<int64_t> sizes) {
    return constants[i].isTensor() && constants[i].toTensor().scalar_type() == at::kFloat &&
           constants[i].toTensor().sizes() == at::IntArrayRef(sizes);
  };
  if (!is(5, {3 * width, width}) || !is(6, {3 * width}) || !is(7, {width, width}) ||
      !is(8, {width})) {
    return Decline();
  }
  auto tensor = [&](size_t i) { return constants[i].toTensor().contiguous(); };
  auto kernel = std::make_shared<MultiHeadAttentionKernel>(width, heads, tensor(5), tensor(6),
                                                           tensor(7), tensor(8));
  return [kernel](NodeIO& io) { (*kernel)(io); };
}

}  // namespace

void RegisterMultiHeadAttentionKernels(KernelRegistry& registry) {
  registry.Add(Native("aten::_native_multi_head_attention", "", Reference));
  registry.Add({KernelOp::Overload("static_runtime::multi_head_attention", ""),
                NodeKind::kOutVariant, MakeMultiHeadAttentionKernel,
                ops::MultiHeadAttentionErrorBound});
}

}  // namespace static_runtime
