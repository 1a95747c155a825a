#include "ops/attention/attention_error_bounds.h"

#include <cmath>
#include <limits>
#include <tuple>

#include "ATen/NestedTensorImpl.h"

namespace static_runtime {
namespace ops {
namespace {

// max|z| / sigma(z) of each row (last dimension) of `z`, keeping that
// dimension, for a layer norm with `eps`.
at::Tensor NormAmplification(const at::Tensor& z, double eps) {
  const at::Tensor sigma = (z.var(-1, /*unbiased=*/false, /*keepdim=*/true) + eps).sqrt();
  return std::get<0>(z.abs().max(-1, /*keepdim=*/true)) / sigma;
}

}  // namespace

at::Tensor TransformerEncoderLayerErrorBound(const std::vector<c10::IValue>& inputs,
                                             const at::Tensor& exact) {
  auto dbl = [&](size_t i) { return inputs[i].toTensor().to(at::kDouble); };
  const int64_t width = inputs[1].toInt(), heads = inputs[2].toInt();
  const bool use_gelu = inputs[7].toBool(), norm_first = inputs[8].toBool();
  const double norm_eps = inputs[9].toDouble();
  c10::optional<at::Tensor> mask = inputs[18].toOptional<at::Tensor>();
  c10::optional<int64_t> mask_type = inputs[19].toOptional<int64_t>();
  at::Tensor src = inputs[0].toTensor();
  if (src.is_nested()) {
    // A nested source: its sequences padded, the padding masked as keys
    // (`exact` is padded too).
    const at::Tensor lengths = at::native::get_nested_size_tensor(src).select(1, 0);
    src = src.to_padded_tensor(0);
    mask = at::arange(src.size(1), at::kLong).unsqueeze(0) >= lengths.unsqueeze(1);
    mask_type = 1;
  }
  // The inputs of the two layer norms, in float64.
  auto attention = [&](const at::Tensor& x) {
    return std::get<0>(at::_native_multi_head_attention(
        x, x, x, width, heads, dbl(3), dbl(4), dbl(5), dbl(6), mask, /*need_weights=*/false,
        /*average_attn_weights=*/true, mask_type));
  };
  auto norm = [&](const at::Tensor& z, size_t weight) {
    return at::layer_norm(z, {width}, dbl(weight), dbl(weight + 1), norm_eps);
  };
  auto feed_forward = [&](const at::Tensor& x) {
    at::Tensor hidden = at::linear(x, dbl(14), dbl(15));
    hidden = use_gelu ? at::gelu(hidden) : at::relu(hidden);
    return at::linear(hidden, dbl(16), dbl(17));
  };
  src = src.to(at::kDouble);
  at::Tensor first, second;
  if (norm_first) {
    first = src;
    second = src + attention(norm(src, 10));
  } else {
    first = src + attention(src);
    const at::Tensor normed = norm(first, 10);
    second = normed + feed_forward(normed);
  }
  const at::Tensor a1 = NormAmplification(first, norm_eps).max();
  const at::Tensor a2 = NormAmplification(second, norm_eps);
  const int64_t feed_forward_width = inputs[14].toTensor().size(0);
  const double eps = std::numeric_limits<float>::epsilon();
  const at::Tensor row_scale = std::get<0>(exact.to(at::kDouble).abs().max(-1, /*keepdim=*/true));
  return (row_scale + 1) * (a1 + 1) * (a2 + 1) *
             (4 * static_cast<double>(width + feed_forward_width) * eps) +
         at::zeros_like(exact, at::kDouble);
}

at::Tensor MultiHeadAttentionErrorBound(const std::vector<c10::IValue>& inputs,
                                        const at::Tensor& exact) {
  const int64_t width = inputs[3].toInt(), heads = inputs[4].toInt();
  const int64_t head_width = width / heads;
  at::Tensor x = inputs[0].toTensor();
  c10::optional<at::Tensor> mask = inputs[9].toOptional<at::Tensor>();
  if (x.is_nested()) {
    const at::Tensor lengths = at::native::get_nested_size_tensor(x).select(1, 0);
    x = x.to_padded_tensor(0);
    mask = at::arange(x.size(1), at::kLong).unsqueeze(0) >= lengths.unsqueeze(1);
  }
  x = x.to(at::kDouble);
  const int64_t batch = x.size(0), tokens = x.size(1);
  auto dbl = [&](size_t i) { return inputs[i].toTensor().to(at::kDouble); };
  const at::Tensor w = dbl(5), b = dbl(6), w_out = dbl(7), b_out = dbl(8);
  // [B, T, 3D] -> q, k, v as [B, heads, T, d], q scaled.
  auto split = [&](const at::Tensor& t, int64_t part) {
    const at::Tensor heads_first = t.narrow(-1, part * width, width)
                                       .reshape({batch, tokens, heads, head_width})
                                       .transpose(1, 2);
    return part == 0 ? heads_first / std::sqrt(static_cast<double>(head_width)) : heads_first;
  };
  const at::Tensor qkv = at::linear(x, w, b), qkv_abs = at::linear(x.abs(), w.abs(), b.abs());
  at::Tensor scores = at::matmul(split(qkv, 0), split(qkv, 1).transpose(-2, -1));
  if (mask) {
    scores = scores.masked_fill(mask->to(at::kBool).view({batch, 1, 1, tokens}),
                                -std::numeric_limits<double>::infinity());
  }
  const at::Tensor probabilities = at::softmax(scores, -1);
  const double eps = std::numeric_limits<float>::epsilon();
  const double d = static_cast<double>(width);
  const at::Tensor score_error =
      at::matmul(split(qkv_abs, 0), split(qkv_abs, 1).transpose(-2, -1)) *
      (2 * (d + static_cast<double>(head_width) + 4) * eps);
  const at::Tensor context_abs = at::matmul(probabilities, split(qkv_abs, 2));
  const at::Tensor context_error =
      context_abs * (2 * (d + static_cast<double>(tokens) + 4) * eps +
                     4 * std::get<0>(score_error.max(-1, /*keepdim=*/true)));
  auto merge = [&](const at::Tensor& t) {
    return t.transpose(1, 2).reshape({batch, tokens, width});
  };
  return at::linear(merge(context_error), w_out.abs()) +
         at::linear(merge(context_abs), w_out.abs(), b_out.abs()) * (2 * (d + 2) * eps) +
         exact.to(at::kDouble).abs() * (4 * eps);
}

}  // namespace ops
}  // namespace static_runtime
