// ConcatSizes/ConcatInto against at::cat and at::stack: random ranks,
// sizes, dims (negative too), dtypes and input layouts (transposed, sliced,
// expanded), bit for bit; and the cases it leaves to ATen.
#include "ops/tensor/concat_copy.h"

#include <vector>

#include "ATen/ATen.h"
#include "c10/core/InferenceMode.h"
#include "gtest/gtest.h"
#include "rapidcheck.h"
#include "rapidcheck/gtest.h"

namespace static_runtime {
namespace {

// A tensor of `sizes` and `dtype` in one of four layouts.
at::Tensor Input(std::vector<int64_t> sizes, at::ScalarType dtype, int layout) {
  at::Tensor values = at::randint(-100, 100, sizes, at::kLong).to(dtype);
  if (layout == 1 && sizes.size() >= 2) {  // transposed: same values, other strides
    return values.transpose(0, 1).contiguous().transpose(0, 1);
  }
  if (layout == 2 && !sizes.empty()) {  // every other element of something twice as wide
    std::vector<int64_t> wide = sizes;
    wide.back() *= 2;
    at::Tensor base = at::randint(-100, 100, wide, at::kLong).to(dtype);
    return base.slice(static_cast<int64_t>(wide.size()) - 1, 0, wide.back(), 2);
  }
  if (layout == 3 && !sizes.empty() && sizes[0] > 0) {  // expanded along dim 0
    std::vector<int64_t> one = sizes;
    one[0] = 1;
    return at::randint(-100, 100, one, at::kLong).to(dtype).expand(sizes);
  }
  return values;
}

RC_GTEST_PROP(ConcatCopyProperty, EqualsAtenCatAndStack, ()) {
  c10::InferenceMode inference;
  const bool stack = *rc::gen::arbitrary<bool>();
  const int64_t input_rank = *rc::gen::inRange<int64_t>(stack ? 0 : 1, stack ? 3 : 4);
  const int64_t rank = input_rank + (stack ? 1 : 0);
  const int64_t dim = *rc::gen::inRange<int64_t>(-rank, rank);
  const at::ScalarType dtype = *rc::gen::element(at::kFloat, at::kDouble, at::kLong, at::kInt,
                                                 at::kBool, at::kHalf, at::kByte);
  std::vector<int64_t> sizes(input_rank);
  for (int64_t& size : sizes) size = *rc::gen::inRange<int64_t>(0, 5);
  const int count = *rc::gen::inRange(1, 5);
  std::vector<at::Tensor> inputs;
  const int64_t cat_dim = dim < 0 ? dim + rank : dim;
  for (int i = 0; i < count; ++i) {
    std::vector<int64_t> own = sizes;
    if (!stack) own[cat_dim] = *rc::gen::inRange<int64_t>(0, 4);
    inputs.push_back(Input(own, dtype, *rc::gen::inRange(0, 4)));
  }
  const at::Tensor expected = stack ? at::stack(inputs, dim) : at::cat(inputs, dim);
  const auto sizes_or = ConcatSizes(inputs, dim, stack);
  RC_ASSERT(sizes_or.has_value());
  RC_ASSERT(at::IntArrayRef(*sizes_or) == expected.sizes());
  at::Tensor out = at::empty(*sizes_or, at::TensorOptions().dtype(dtype));
  ConcatInto(inputs, dim, stack, out);
  RC_ASSERT(out.is_contiguous());
  RC_ASSERT(out.strides() == expected.strides());
  RC_ASSERT(at::equal(out, expected));
}

TEST(ConcatCopyTest, LeavesToAtenWhatItDoesNotTake) {
  const at::Tensor a = at::ones({2, 3});
  EXPECT_FALSE(ConcatSizes({}, 0, false).has_value());
  EXPECT_FALSE(ConcatSizes({a, at::ones({2, 4})}, 0, false).has_value());   // sizes off dim
  EXPECT_FALSE(ConcatSizes({a, at::ones({2, 4})}, 1, true).has_value());    // stack: all equal
  EXPECT_FALSE(ConcatSizes({a, a.to(at::kDouble)}, 0, false).has_value());  // dtypes
  EXPECT_FALSE(ConcatSizes({a, at::ones({6})}, 0, false).has_value());      // ranks
  EXPECT_FALSE(ConcatSizes({a}, 2, false).has_value());                     // dim
  EXPECT_FALSE(ConcatSizes({a}, -4, true).has_value());
  EXPECT_FALSE(ConcatSizes({at::ones({})}, 0, false).has_value());            // 0-dim cat
  EXPECT_FALSE(ConcatSizes({at::ones({1, 2, 2, 2})}, 0, false).has_value());  // 4-D
  EXPECT_FALSE(ConcatSizes({at::ones({1 << 16})}, 0, false).has_value());     // large
  EXPECT_FALSE(ConcatSizes({at::ones({2}, at::kComplexDouble)}, 0, false).has_value());
  EXPECT_FALSE(ConcatSizes({at::quantize_per_tensor(at::ones({2}), 0.1, 0, at::kQInt8)}, 0, false)
                   .has_value());
  EXPECT_TRUE(ConcatSizes({at::ones({}), at::ones({})}, 0, true).has_value());  // stack of 0-dim
}

}  // namespace
}  // namespace static_runtime
