// ChannelsLastConcatInto against at::cat, bit for bit and stride for
// stride, on channels-last images of random sizes (channels across the
// 8-value copies and their tails); and the inputs it leaves to ATen.
#include "ops/tensor/channels_last_concat.h"

#include <vector>

#include "ATen/ATen.h"
#include "gtest/gtest.h"
#include "rapidcheck.h"
#include "rapidcheck/gtest.h"

namespace static_runtime {
namespace {

at::Tensor ChannelsLastImage(int64_t n, int64_t c, int64_t h, int64_t w, at::ScalarType dtype) {
  return at::randn({n, c, h, w}).to(dtype).contiguous(at::MemoryFormat::ChannelsLast);
}

RC_GTEST_PROP(ChannelsLastConcat, EqualsAtenCat, ()) {
  const int64_t n = *rc::gen::inRange<int64_t>(1, 3);
  const int64_t h = *rc::gen::inRange<int64_t>(2, 6);
  const int64_t w = *rc::gen::inRange<int64_t>(2, 6);
  const at::ScalarType dtype =
      *rc::gen::elementOf(std::vector<at::ScalarType>{at::kFloat, at::kInt});
  std::vector<at::Tensor> inputs;
  const int count = *rc::gen::inRange(1, 6);
  for (int i = 0; i < count; ++i) {
    inputs.push_back(ChannelsLastImage(n, *rc::gen::inRange<int64_t>(2, 40), h, w, dtype));
  }
  const int64_t dim = *rc::gen::elementOf(std::vector<int64_t>{1, -3});
  const std::optional<at::DimVector> sizes = ChannelsLastConcatSizes(inputs, dim);
  RC_ASSERT(sizes.has_value());
  at::Tensor out =
      at::empty(*sizes, at::TensorOptions(dtype).memory_format(at::MemoryFormat::ChannelsLast));
  ChannelsLastConcatInto(inputs, out);
  const at::Tensor expected = at::cat(inputs, dim);
  RC_ASSERT(out.sizes() == expected.sizes());
  RC_ASSERT(out.strides() == expected.strides());
  RC_ASSERT(at::equal(out, expected));
}

TEST(ChannelsLastConcat, LeavesOtherInputsToAten) {
  const at::Tensor a = ChannelsLastImage(1, 8, 3, 3, at::kFloat);
  const at::Tensor b = ChannelsLastImage(1, 4, 3, 3, at::kFloat);
  EXPECT_TRUE(ChannelsLastConcatSizes({a, b}, 1).has_value());
  // ATen's result is contiguous when one input is.
  EXPECT_FALSE(ChannelsLastConcatSizes({a, b.contiguous()}, 1).has_value());
  // Another dim, dtype size, rank or spatial size.
  EXPECT_FALSE(ChannelsLastConcatSizes({a, a}, 0).has_value());
  EXPECT_FALSE(ChannelsLastConcatSizes({a, b.to(at::kDouble)}, 1).has_value());
  EXPECT_FALSE(ChannelsLastConcatSizes({a.to(at::kDouble), b.to(at::kDouble)}, 1).has_value());
  EXPECT_FALSE(ChannelsLastConcatSizes({a, ChannelsLastImage(1, 4, 3, 4, at::kFloat)}, 1));
  EXPECT_FALSE(ChannelsLastConcatSizes({a.flatten(2), b.flatten(2)}, 1).has_value());
  EXPECT_FALSE(ChannelsLastConcatSizes({}, 1).has_value());
}

}  // namespace
}  // namespace static_runtime
