// ops/attention/attention_steps and SoftmaxLastDimInto (ops/core/cpu_kernels.h) against the
// ATen ops they stand for, bit for bit (NaN, infinities and -0.0 included),
// on random shapes: head widths that are and are not multiples of the
// vector width, one token, one head.
#include "ops/attention/attention_steps.h"

#include <cstdint>
#include <limits>
#include <vector>

#include "ATen/ATen.h"
#include "gtest/gtest.h"
#include "ops/core/cpu_kernels.h"
#include "rapidcheck.h"
#include "rapidcheck/gtest.h"

namespace static_runtime {
namespace {

// Normal values with a few NaNs, infinities and negative zeros among them.
at::Tensor Values(at::IntArrayRef sizes) {
  at::Tensor t = at::randn(sizes);
  float* data = t.data_ptr<float>();
  const std::vector<float> specials = {std::numeric_limits<float>::quiet_NaN(),
                                       std::numeric_limits<float>::infinity(),
                                       -std::numeric_limits<float>::infinity(), -0.0f, 0.0f};
  const int64_t count = *rc::gen::inRange<int64_t>(0, 4);
  for (int64_t i = 0; i < count; ++i) {
    data[*rc::gen::inRange<int64_t>(0, t.numel())] = *rc::gen::elementOf(specials);
  }
  return t;
}

bool SameBits(const at::Tensor& a, const at::Tensor& b) {
  return a.sizes().equals(b.sizes()) &&
         at::equal(a.contiguous().view(at::kInt), b.contiguous().view(at::kInt));
}

RC_GTEST_PROP(AttentionStepsProperty, SplitHeadsIsAtensTransformBiasRescaleQkv, ()) {
  const int64_t batch = *rc::gen::inRange<int64_t>(1, 4);
  const int64_t tokens = *rc::gen::inRange<int64_t>(1, 10);
  const int64_t heads = *rc::gen::inRange<int64_t>(1, 5);
  const int64_t head_width = *rc::gen::inRange<int64_t>(1, 40);
  const int64_t width = heads * head_width;
  const at::Tensor qkv = Values({batch, tokens, 3 * width});
  const at::Tensor bias = Values({3 * width});
  at::Tensor q_k_v = at::empty({3, batch, heads, tokens, head_width});
  ops::SplitHeads(qkv.data_ptr<float>(), bias.data_ptr<float>(), batch, tokens, width, heads,
                  q_k_v.data_ptr<float>());
  const auto [q, k, v] = at::_transform_bias_rescale_qkv(qkv, bias, heads);
  RC_ASSERT(SameBits(q_k_v[0], q));
  RC_ASSERT(SameBits(q_k_v[1], k));
  RC_ASSERT(SameBits(q_k_v[2], v));
}

RC_GTEST_PROP(AttentionStepsProperty, MergeHeadsIsTheTransposedCopy, ()) {
  const int64_t batch = *rc::gen::inRange<int64_t>(1, 4);
  const int64_t tokens = *rc::gen::inRange<int64_t>(1, 10);
  const int64_t heads = *rc::gen::inRange<int64_t>(1, 5);
  const int64_t head_width = *rc::gen::inRange<int64_t>(1, 20);
  const at::Tensor context = Values({batch, heads, tokens, head_width});
  at::Tensor merged = at::empty({batch, tokens, heads * head_width});
  ops::MergeHeads(context.data_ptr<float>(), batch, tokens, heads * head_width, heads,
                  merged.data_ptr<float>());
  RC_ASSERT(SameBits(merged, context.transpose(1, 2).reshape({batch, tokens, -1})));
}

RC_GTEST_PROP(AttentionStepsProperty, AddIsAtens, ()) {
  const int64_t count = *rc::gen::inRange<int64_t>(1, 100);
  const at::Tensor a = Values({count});
  const at::Tensor b = Values({count});
  at::Tensor sum = a.clone();
  ops::AddInPlace(sum.data_ptr<float>(), b.data_ptr<float>(), count);
  RC_ASSERT(SameBits(sum, a + b));
}

RC_GTEST_PROP(AttentionStepsProperty, SoftmaxLastDimIsAtens, ()) {
  const int64_t rows = *rc::gen::inRange<int64_t>(1, 12);
  const int64_t cols = *rc::gen::inRange<int64_t>(1, 70);
  const at::Tensor x = Values({rows, cols});
  at::Tensor out = at::empty_like(x);
  SoftmaxLastDimInto(x, out);
  RC_ASSERT(SameBits(out, at::softmax(x, 1)));
  at::Tensor in_place = x.clone();
  SoftmaxLastDimInto(in_place, in_place);
  RC_ASSERT(SameBits(in_place, out));
}

}  // namespace
}  // namespace static_runtime
