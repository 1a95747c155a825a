// PlanBmm/BmmInto against at::bmm, bit for bit: random batch counts and
// matrix sizes around ATen's 400 threshold, float and double, operands
// contiguous, transposed, with a larger leading dimension, or broadcast
// along the batch.
#include "ops/batched_gemm.h"

#include <vector>

#include "ATen/ATen.h"
#include "gtest/gtest.h"
#include "rapidcheck.h"
#include "rapidcheck/gtest.h"

namespace static_runtime {
namespace {

// A [batch, rows, cols] operand in one of four layouts.
at::Tensor Operand(int64_t batch, int64_t rows, int64_t cols, at::ScalarType dtype, int layout) {
  switch (layout) {
    case 1:  // each matrix transposed in memory
      return at::randn({batch, cols, rows}, dtype).transpose(1, 2);
    case 2:  // rows further apart than cols
      return at::randn({batch, rows, cols + 3}, dtype).narrow(2, 0, cols);
    case 3:  // one matrix for every batch
      return at::randn({1, rows, cols}, dtype).expand({batch, rows, cols});
    default:
      return at::randn({batch, rows, cols}, dtype);
  }
}

RC_GTEST_PROP(BatchedGemmProperty, SameBitsAsAtenBmm, ()) {
  const at::ScalarType dtype = *rc::gen::element(at::kFloat, at::kDouble);
  const int64_t batch = *rc::gen::inRange<int64_t>(1, 6);
  const int64_t rows = *rc::gen::inRange<int64_t>(1, 24);
  const int64_t inner = *rc::gen::inRange<int64_t>(1, 40);
  const int64_t cols = *rc::gen::inRange<int64_t>(1, 24);
  const at::Tensor a = Operand(batch, rows, inner, dtype, *rc::gen::inRange(0, 4));
  const at::Tensor b = Operand(batch, inner, cols, dtype, *rc::gen::inRange(0, 4));
  const std::optional<BmmPlan> plan = PlanBmm(a, b);
  RC_CLASSIFY(plan.has_value(), "planned");
  if (inner * rows * cols < 400) RC_ASSERT(!plan.has_value());
  if (!plan) return;
  at::Tensor out = at::empty({batch, rows, cols}, dtype);
  BmmInto(*plan, a, b, out);
  RC_ASSERT(at::equal(out, at::bmm(a, b)));
}

TEST(BatchedGemmTest, TakesADlrmInteraction) {
  const at::Tensor t = at::randn({16, 5, 16});
  const std::optional<BmmPlan> plan = PlanBmm(t, t.transpose(1, 2));
  ASSERT_TRUE(plan.has_value());
  at::Tensor out = at::empty({16, 5, 5});
  BmmInto(*plan, t, t.transpose(1, 2), out);
  EXPECT_TRUE(at::equal(out, at::bmm(t, t.transpose(1, 2))));
}

TEST(BatchedGemmTest, LeavesOtherCasesToAten) {
  const at::Tensor a = at::randn({2, 20, 20});
  EXPECT_FALSE(PlanBmm(a.to(at::kInt), a.to(at::kInt)).has_value());                // dtype
  EXPECT_FALSE(PlanBmm(a, a.to(at::kDouble)).has_value());                          // mixed
  EXPECT_FALSE(PlanBmm(a, at::randn({2, 21, 20})).has_value());                     // sizes
  EXPECT_FALSE(PlanBmm(a, at::randn({3, 20, 20})).has_value());                     // batches
  EXPECT_FALSE(PlanBmm(a[0], a[0]).has_value());                                    // rank
  EXPECT_FALSE(PlanBmm(at::randn({2, 2, 2}), at::randn({2, 2, 2})).has_value());    // small
  EXPECT_FALSE(PlanBmm(at::randn({2, 20, 40}).slice(2, 0, 40, 2), a).has_value());  // copied
}

}  // namespace
}  // namespace static_runtime
