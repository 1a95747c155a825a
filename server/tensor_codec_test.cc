#include "server/tensor_codec.h"

#include <cstring>
#include <limits>
#include <vector>

#include "ATen/ATen.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace static_runtime {
namespace server {
namespace {

using ::testing::HasSubstr;

TEST(TensorCodec, DatatypesRoundTrip) {
  for (const char* name :
       {"BOOL", "UINT8", "INT8", "INT16", "INT32", "INT64", "FP16", "BF16", "FP32", "FP64"}) {
    absl::StatusOr<c10::ScalarType> type = ScalarTypeOfInput("x", name);
    ASSERT_TRUE(type.ok()) << name;
    EXPECT_EQ(DatatypeOf(*type).value(), name);
  }
  absl::StatusOr<c10::ScalarType> bytes = ScalarTypeOfInput("text", "BYTES");
  EXPECT_THAT(bytes.status().message(), HasSubstr("input 'text': datatype 'BYTES'"));
  EXPECT_FALSE(DatatypeOf(c10::ScalarType::ComplexFloat).ok());
}

TEST(TensorCodec, ElementCountsAreCheckedBeforeAllocating) {
  EXPECT_EQ(CheckedElementCount("x", {2, 3, 4}, 100).value(), 24);
  EXPECT_EQ(CheckedElementCount("x", {}, 100).value(), 1);
  EXPECT_EQ(CheckedElementCount("x", {0, int64_t{1} << 62}, 100).value(), 0);
  EXPECT_THAT(CheckedElementCount("x", {2, -1}, 100).status().message(),
              HasSubstr("input 'x': dimension 1 has negative size -1"));
  EXPECT_THAT(
      CheckedElementCount("x", {int64_t{1} << 40, int64_t{1} << 40}, 100).status().message(),
      HasSubstr("limit of 100"));
  EXPECT_THAT(CheckedElementCount("x", {101}, 100).status().message(), HasSubstr("limit of 100"));
  const int64_t big = std::numeric_limits<int64_t>::max();
  EXPECT_FALSE(CheckedElementCount("x", {big, big, big}, big).ok());
}

TEST(TensorCodec, RawBytesRoundTripEveryDtype) {
  for (c10::ScalarType type :
       {c10::ScalarType::Float, c10::ScalarType::Double, c10::ScalarType::Long,
        c10::ScalarType::Int, c10::ScalarType::Short, c10::ScalarType::Char, c10::ScalarType::Byte,
        c10::ScalarType::Half, c10::ScalarType::BFloat16}) {
    const at::Tensor tensor = (at::randn({3, 5}) * 50).to(type);
    const std::string bytes = RawBytes(tensor.t());  // not contiguous
    at::Tensor back = TensorFromRaw("x", type, {5, 3}, bytes, 1000).value();
    EXPECT_TRUE(at::equal(back, tensor.t())) << c10::toString(type);
  }
  EXPECT_THAT(TensorFromRaw("x", c10::ScalarType::Float, {2}, "1234567", 100).status().message(),
              HasSubstr("input 'x': 7 bytes of data, but shape [2] of Float needs 8"));
  const std::string not_bool("\x01\x02", 2);
  EXPECT_THAT(TensorFromRaw("flags", c10::ScalarType::Bool, {2}, not_bool, 100).status().message(),
              HasSubstr("BOOL element 1 is 2"));
}

TEST(TensorCodec, ValuesConvertAndCountsMustMatch) {
  at::Tensor ints =
      TensorFromValues<int64_t>("x", c10::ScalarType::Char, {2}, {-3, 7}, 100).value();
  EXPECT_EQ(ints.scalar_type(), c10::ScalarType::Char);
  EXPECT_TRUE(at::equal(ints, at::tensor({-3, 7}, at::kChar)));
  EXPECT_THAT(
      TensorFromValues<double>("x", c10::ScalarType::Float, {2, 2}, {1.0}, 100).status().message(),
      HasSubstr("input 'x': 1 elements of data, but shape [2,2] has 4"));
  EXPECT_THAT(CheckIntegerRange("x", c10::ScalarType::Byte, {0, 255, 256}).message(),
              HasSubstr("element 2 (256) is out of the range of Byte"));
  EXPECT_TRUE(CheckIntegerRange("x", c10::ScalarType::Short, {-32768, 32767}).ok());
  EXPECT_FALSE(CheckIntegerRange("x", c10::ScalarType::Int, {int64_t{1} << 31}).ok());
}

}  // namespace
}  // namespace server
}  // namespace static_runtime
