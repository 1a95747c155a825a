#include "verify/reference.h"

#include <cmath>
#include <limits>

#include "ATen/ATen.h"
#include "gtest/gtest.h"

namespace static_runtime {
namespace reference {
namespace {

// What is one object stays one object in the copy, and only that.
TEST(ReferenceTest, DeepCopyKeepsWhichValuesAreOneObject) {
  const at::Tensor shared = at::randn({3});
  const at::Tensor other = shared.clone();
  c10::List<at::Tensor> list({shared, shared});
  const std::vector<c10::IValue> copies = reference::DeepCopy({shared, shared, other, list});
  EXPECT_TRUE(copies[0].is(copies[1]));
  EXPECT_FALSE(copies[0].is(shared));
  EXPECT_FALSE(copies[0].is(copies[2]));
  const c10::List<at::Tensor> list_copy = copies[3].toTensorList();
  EXPECT_TRUE(list_copy.get(0).is_same(list_copy.get(1)));
  EXPECT_TRUE(list_copy.get(0).is_same(copies[0].toTensor()));
  EXPECT_TRUE(at::equal(copies[0].toTensor(), shared));
  // Separate calls copy separately.
  EXPECT_FALSE(
      reference::DeepCopy(c10::IValue(shared)).is(reference::DeepCopy(c10::IValue(shared))));
}

TEST(ReferenceTest, MaxAbsDifferenceChecksStructure) {
  auto same = MaxAbsDifference(c10::ivalue::Tuple::create({at::ones({2}), int64_t{3}}),
                               c10::ivalue::Tuple::create({at::full({2}, 1.5), int64_t{3}}));
  ASSERT_TRUE(same.ok());
  EXPECT_DOUBLE_EQ(*same, 0.5);
  EXPECT_FALSE(MaxAbsDifference(at::ones({2}), at::ones({3})).ok());
  EXPECT_FALSE(MaxAbsDifference(at::ones({2}), at::ones({2}, at::kDouble)).ok());
  // NaN where the other has a number is an infinite difference; NaN against
  // NaN and an infinity against itself none.
  const float nan = std::nanf(""), inf = std::numeric_limits<float>::infinity();
  auto nan_vs_number = MaxAbsDifference(at::tensor({nan, 1.f}), at::tensor({1.f, 1.f}));
  ASSERT_TRUE(nan_vs_number.ok());
  EXPECT_TRUE(std::isinf(*nan_vs_number));
  auto alike = MaxAbsDifference(at::tensor({nan, inf, 2.f}), at::tensor({nan, inf, 2.5f}));
  ASSERT_TRUE(alike.ok());
  EXPECT_DOUBLE_EQ(*alike, 0.5);
}

TEST(ReferenceTest, CompareNamesThePathOfTheFirstDifference) {
  const c10::IValue expected = c10::ivalue::Tuple::create({at::ones({2}), int64_t{3}});
  EXPECT_TRUE(Compare(expected, c10::ivalue::Tuple::create({at::ones({2}), int64_t{3}})).ok());
  const absl::Status different =
      Compare(expected, c10::ivalue::Tuple::create({at::ones({2}), int64_t{4}}));
  ASSERT_FALSE(different.ok());
  EXPECT_EQ(different.message(), "output[1]: 3 vs 4");
  EXPECT_FALSE(Compare(expected, c10::ivalue::Tuple::create({at::ones({2})})).ok());
}

// kWholeModel: the default bound plus 1e-3 of the tensor's largest finite
// magnitude; integers and NaN positions still exact.
TEST(ReferenceTest, WholeModelToleranceScalesWithTheLargestValue) {
  const float inf = std::numeric_limits<float>::infinity();
  const at::Tensor expected = at::tensor({0.06f, -0.2f, 1e-3f, inf});
  const at::Tensor close = at::tensor({0.06f + 1.5e-4f, -0.2f, 1e-3f - 1.5e-4f, inf});
  EXPECT_FALSE(Compare(expected, close).ok());
  EXPECT_TRUE(Compare(expected, close, Tolerance::kWholeModel).ok());
  const at::Tensor far = at::tensor({0.06f + 3e-4f, -0.2f, 1e-3f, inf});
  EXPECT_FALSE(Compare(expected, far, Tolerance::kWholeModel).ok());
  EXPECT_FALSE(Compare(at::tensor({1, 2}), at::tensor({1, 3}), Tolerance::kWholeModel).ok());
  EXPECT_FALSE(
      Compare(at::tensor({1.f, 2.f}), at::tensor({1.f, std::nanf("")}), Tolerance::kWholeModel)
          .ok());
}

}  // namespace
}  // namespace reference
}  // namespace static_runtime
