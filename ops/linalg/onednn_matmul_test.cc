// onednn::PackedLinear at row counts it meets for the first time: where it
// runs them in blocks while their own plan is made in the background, the
// results are the plan's bit for bit (a row's result does not depend on how
// many rows one primitive multiplies: checked on every CPU of the matrix),
// the call that meets a row count makes no plan, and the next calls use the
// plan made meanwhile; elsewhere the call makes its plan.
#include "ops/linalg/onednn_matmul.h"

#include <cstring>

#include "ATen/ATen.h"
#include "absl/synchronization/notification.h"
#include "execution/background_work.h"
#include "gtest/gtest.h"
#include "ops/onednn/onednn.h"
#include "rapidcheck.h"
#include "rapidcheck/gtest.h"

namespace static_runtime {
namespace onednn {
namespace {

at::Tensor RunLinear(PackedLinear& linear, const at::Tensor& src) {
  at::Tensor out = at::empty({src.size(0), linear.out_features()});
  linear.Run(src.data_ptr<float>(), src.size(0), out.data_ptr<float>());
  return out;
}

bool BitwiseEqual(const at::Tensor& a, const at::Tensor& b) {
  return a.sizes() == b.sizes() &&
         std::memcmp(a.data_ptr(), b.data_ptr(), a.numel() * sizeof(float)) == 0;
}

RC_GTEST_PROP(PackedLinearProperty, ANewRowCountGivesItsOwnPlansResults, ()) {
  at::manual_seed(*rc::gen::inRange(0, 1 << 20));
  const int64_t k = *rc::gen::inRange<int64_t>(1, 600);
  const int64_t n = *rc::gen::inRange<int64_t>(1, 300);
  const at::Tensor weight = at::randn({n, k});
  const at::Tensor bias = *rc::gen::arbitrary<bool>() ? at::randn({n}) : at::Tensor();
  PackedLinear linear(weight, bias);
  for (int round = 0; round < 3; ++round) {
    const int64_t rows = *rc::gen::inRange<int64_t>(1, 200);
    const at::Tensor src = at::randn({rows, k});
    const at::Tensor first = RunLinear(linear, src);  // in blocks where it runs them
    WaitForBackgroundWork();
    const at::Tensor planned = RunLinear(linear, src);  // on the plan of `rows`
    RC_ASSERT(BitwiseEqual(first, planned));
    if (linear.RunsNewRowCountsInBlocks()) {
      // Which holds because rows give the same results in any product (on
      // oneDNN's gemm matmul they do not: the check fails on AVX2).
      const int64_t from = *rc::gen::inRange<int64_t>(0, rows);
      const at::Tensor part = src.slice(0, from).contiguous();
      RC_ASSERT(BitwiseEqual(RunLinear(linear, part), planned.slice(0, from).contiguous()));
    }
  }
  WaitForBackgroundWork();
}

TEST(PackedLinearTest, TheCallThatMeetsARowCountMakesNoPlan) {
  const at::Tensor weight = at::randn({96, 80}), bias = at::randn({96});
  PackedLinear linear(weight, bias);
  if (!linear.RunsNewRowCountsInBlocks()) {
    const uint64_t before = PlansMade();
    RunLinear(linear, at::randn({37, 80}));
    EXPECT_EQ(PlansMade(), before + 1) << "oneDNN's gemm matmul: the call makes its plan";
    GTEST_SKIP() << "oneDNN runs no brgemm matmul on this CPU";
  }
  const at::Tensor src = at::randn({37, 80});
  absl::Notification release;
  PostBackgroundWork([&] { release.WaitForNotification(); });  // holds the background
  const uint64_t before = PlansMade();
  const at::Tensor first = RunLinear(linear, src);
  const at::Tensor again = RunLinear(linear, src);
  EXPECT_EQ(PlansMade(), before) << "a plan made by a call";
  release.Notify();
  WaitForBackgroundWork();
  EXPECT_EQ(PlansMade(), before + 1) << "the plan of 37 rows, made once in the background";
  const at::Tensor planned = RunLinear(linear, src);
  EXPECT_EQ(PlansMade(), before + 1);
  EXPECT_TRUE(BitwiseEqual(first, planned));
  EXPECT_TRUE(BitwiseEqual(again, planned));
  EXPECT_TRUE(at::allclose(planned, at::linear(src, weight, bias), 1e-4, 1e-4))
      << "not the product";
}

}  // namespace
}  // namespace onednn
}  // namespace static_runtime
