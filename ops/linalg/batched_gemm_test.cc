// PlanBmm/BmmInto against at::bmm (and, accumulating, at::baddbmm with
// beta and alpha 1), bit for bit: random batch counts and
// matrix sizes around ATen's 400 threshold, float and double, operands
// contiguous, transposed, with a larger leading dimension, or broadcast
// along the batch; products shorter and longer than the fused multiply-add
// chain's limit (k < 32), rows of -0.
#include "ops/linalg/batched_gemm.h"

#include <vector>

#include "ATen/ATen.h"
#include "gtest/gtest.h"
#include "ops/linalg/fma_chain_matmul.h"
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

// A random product: dtype, batch count and matrix sizes, half the products
// near the chain's limit of 31, a quarter more than 24 columns wide.
struct Shape {
  at::ScalarType dtype;
  int64_t batch, rows, inner, cols;
};

Shape DrawShape() {
  Shape shape;
  shape.dtype = *rc::gen::element(at::kFloat, at::kDouble);
  shape.batch = *rc::gen::inRange<int64_t>(1, 6);
  shape.rows = *rc::gen::inRange<int64_t>(1, 24);
  shape.inner = *rc::gen::weightedOneOf<int64_t>(
      {{1, rc::gen::inRange<int64_t>(1, 40)}, {1, rc::gen::inRange<int64_t>(28, 36)}});
  // Some wide enough for the chain's blocks of 32 and 64 columns.
  shape.cols = *rc::gen::weightedOneOf<int64_t>(
      {{3, rc::gen::inRange<int64_t>(1, 24)}, {1, rc::gen::inRange<int64_t>(24, 140)}});
  return shape;
}

RC_GTEST_PROP(BatchedGemmProperty, SameBitsAsAtenBmm, ()) {
  const auto [dtype, batch, rows, inner, cols] = DrawShape();
  const bool negative_zero_row = *rc::gen::inRange(0, 4) == 0;
  // Every pair of layouts (a gemm's arithmetic can depend on its operands').
  for (int a_layout = 0; a_layout < 4; ++a_layout) {
    for (int b_layout = 0; b_layout < 4; ++b_layout) {
      at::Tensor a = Operand(batch, rows, inner, dtype, a_layout);
      const at::Tensor b = Operand(batch, inner, cols, dtype, b_layout);
      if (negative_zero_row) {
        a = a.clone();
        a.select(1, 0).fill_(-0.0);
      }
      const std::optional<BmmPlan> plan = PlanBmm(a, b);
      if (a_layout == 0 && b_layout == 0) {
        RC_CLASSIFY(plan.has_value(), "planned");
        RC_CLASSIFY(plan.has_value() && plan->fma_chain, "fused multiply-add chain");
      }
      if (inner * rows * cols < 400) RC_ASSERT(!plan.has_value());
      if (!plan) continue;
      at::Tensor out = at::empty({batch, rows, cols}, dtype);
      BmmInto(*plan, a, b, out);
      // Bits: -0 and +0 differ here.
      const at::ScalarType bits = dtype == at::kFloat ? at::kInt : at::kLong;
      RC_ASSERT(at::equal(out.view(bits), at::bmm(a, b).contiguous().view(bits)));
    }
  }
}

// What a plan with `accumulate` adds to: random values, -0 in every third
// place (a masked score of 0 plus a product of +0 is +0 in IEEE arithmetic).
at::Tensor Addend(int64_t batch, int64_t rows, int64_t cols, at::ScalarType dtype) {
  at::Tensor addend = at::randn({batch, rows, cols}, dtype);
  addend.view(-1).slice(0, 0, addend.numel(), 3).fill_(-0.0);
  return addend;
}

// As baddbmm(self, a, b) with beta and alpha 1: self copied, then added to.
RC_GTEST_PROP(BatchedGemmProperty, AccumulatingSameBitsAsAtenBaddbmm, ()) {
  const auto [dtype, batch, rows, inner, cols] = DrawShape();
  for (int layouts = 0; layouts < 16; ++layouts) {
    const at::Tensor a = Operand(batch, rows, inner, dtype, layouts / 4);
    const at::Tensor b = Operand(batch, inner, cols, dtype, layouts % 4);
    const at::Tensor self = Addend(batch, rows, cols, dtype);
    const std::optional<BmmPlan> plan = PlanBmm(a, b, /*accumulate=*/true);
    if (layouts == 0) RC_CLASSIFY(plan.has_value() && plan->fma_chain, "chain");
    if (!plan) continue;
    at::Tensor out = self.clone();
    BmmInto(*plan, a, b, out);
    const at::ScalarType bits = dtype == at::kFloat ? at::kInt : at::kLong;
    RC_ASSERT(at::equal(out.view(bits), at::baddbmm(self, a, b).contiguous().view(bits)));
  }
}

// A grid of shapes across the chain's limit, every pair of layouts, plain
// and accumulating: where the plan runs the chain, its bits are sgemm's
// (through at::bmm and at::baddbmm).
TEST(BatchedGemmTest, SameBitsOnEveryShapeOfAGrid) {
  at::manual_seed(7);
  const int64_t sides[] = {1, 3, 5, 8, 13, 17};
  for (int64_t inner = 1; inner <= 40; ++inner) {
    for (int64_t rows : sides) {
      for (int64_t cols : sides) {
        for (int layouts = 0; layouts < 32; ++layouts) {
          const bool accumulate = layouts >= 16;
          const at::Tensor a = Operand(2, rows, inner, at::kFloat, layouts % 16 / 4);
          const at::Tensor b = Operand(2, inner, cols, at::kFloat, layouts % 4);
          const std::optional<BmmPlan> plan = PlanBmm(a, b, accumulate);
          if (!plan) continue;
          const at::Tensor self = Addend(2, rows, cols, at::kFloat);
          at::Tensor out = accumulate ? self.clone() : at::empty({2, rows, cols});
          BmmInto(*plan, a, b, out);
          const at::Tensor expected = accumulate ? at::baddbmm(self, a, b) : at::bmm(a, b);
          ASSERT_TRUE(at::equal(out.view(at::kInt), expected.contiguous().view(at::kInt)))
              << "k " << inner << ", " << rows << " x " << cols << ", layouts " << layouts % 16
              << (accumulate ? ", accumulating" : "")
              << (plan->fma_chain ? " (chain)" : " (sgemm)");
        }
      }
    }
  }
}

TEST(BatchedGemmTest, TakesADlrmInteraction) {
  const at::Tensor t = at::randn({16, 5, 16});
  const std::optional<BmmPlan> plan = PlanBmm(t, t.transpose(1, 2));
  ASSERT_TRUE(plan.has_value());
  at::Tensor out = at::empty({16, 5, 5});
  BmmInto(*plan, t, t.transpose(1, 2), out);
  const at::Tensor expected = at::bmm(t, t.transpose(1, 2));
  EXPECT_TRUE(at::equal(out, expected));
  // Where this CPU's sgemm (OpenBLAS's kernels for an FMA core) computes the
  // product of 16 as one chain of fused multiply-adds, as here on these
  // operands, the plan runs that chain itself; other cores (Prescott's SSE3
  // kernels) round otherwise and keep sgemm.
  if (!ops::FmaChainMatmulAvailable()) GTEST_SKIP() << "no AVX2/FMA";
  at::Tensor chain = at::empty({16, 5, 5});
  for (int64_t i = 0; i < 16; ++i) {
    const float* rows = t[i].data_ptr<float>();
    ops::FmaChainMatmul({rows, 16, 1}, {rows, 1, 16}, 5, 16, 5, chain[i].data_ptr<float>());
  }
  if (at::equal(chain, expected)) {
    EXPECT_TRUE(plan->fma_chain);
  }
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
