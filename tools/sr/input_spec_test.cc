#include "tools/sr/input_spec.h"

#include "ATen/ATen.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace static_runtime {
namespace sr {
namespace {

using testing::HasSubstr;

TEST(InputSpecTest, TensorsAndScalars) {
  auto inputs =
      ParseInputSpec("f32[8,64]; i64[32]{0..999};i64[9];bool[2];f64[];int=3;float=0.5;bool=1", 1);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  ASSERT_EQ(inputs->size(), 8u);
  EXPECT_EQ((*inputs)[0].toTensor().sizes(), (std::vector<int64_t>{8, 64}));
  EXPECT_EQ((*inputs)[0].toTensor().scalar_type(), at::kFloat);
  const at::Tensor ids = (*inputs)[1].toTensor();
  EXPECT_EQ(ids.scalar_type(), at::kLong);
  EXPECT_GE(ids.min().item<int64_t>(), 0);
  EXPECT_LE(ids.max().item<int64_t>(), 999);
  EXPECT_LE((*inputs)[2].toTensor().max().item<int64_t>(), 9);
  EXPECT_EQ((*inputs)[3].toTensor().scalar_type(), at::kBool);
  EXPECT_EQ((*inputs)[4].toTensor().dim(), 0);
  EXPECT_EQ((*inputs)[5].toInt(), 3);
  EXPECT_EQ((*inputs)[6].toDouble(), 0.5);
  EXPECT_TRUE((*inputs)[7].toBool());
}

TEST(InputSpecTest, DeterministicForASeed) {
  auto a = ParseInputSpec("f32[4];i64[4]{5..6}", 7);
  auto b = ParseInputSpec("f32[4];i64[4]{5..6}", 7);
  auto c = ParseInputSpec("f32[4];i64[4]{5..6}", 8);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_TRUE((*a)[0].toTensor().equal((*b)[0].toTensor()));
  EXPECT_FALSE((*a)[0].toTensor().equal((*c)[0].toTensor()));
}

TEST(InputSpecTest, ErrorsNameTheItem) {
  auto message = [](const char* spec) {
    auto inputs = ParseInputSpec(spec, 0);
    EXPECT_FALSE(inputs.ok()) << spec;
    return std::string(inputs.status().message());
  };
  EXPECT_THAT(message("f32[2];x32[3]"), HasSubstr("item 2 'x32[3]': unknown dtype 'x32'"));
  EXPECT_THAT(message("f32[2,a]"), HasSubstr("size 'a' is not a number"));
  EXPECT_THAT(message("f32 8"), HasSubstr("expected <dtype>[<sizes>]"));
  EXPECT_THAT(message("f32[2]{0..3}"), HasSubstr("only allowed for integer dtypes"));
  EXPECT_THAT(message("i64[2]{5..1}"), HasSubstr("low <= high"));
  EXPECT_THAT(message("int=x"), HasSubstr("'x' is not a valid int"));
  EXPECT_THAT(message("str=x"), HasSubstr("a scalar is int=N"));
  EXPECT_THAT(message(" ; "), HasSubstr("empty"));
}

}  // namespace
}  // namespace sr
}  // namespace static_runtime
