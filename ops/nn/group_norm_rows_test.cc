// Every group-norm kernel this CPU runs (ops/nn/group_norm_rows.h) against
// at::native_group_norm, bit for bit (NaNs by position): output, mean and
// rstd, on inputs of random batch, channels, groups and lengths (one long
// group, as ConvTasNet's global layer norm, or many short ones) holding
// infinities, NaN, zeros, huge and tiny values, with and without gamma and
// beta, in and out of place; FastGroupNormInto as ATen's group norm, on two
// threads; which kernel is chosen.
#include "ops/nn/group_norm_rows.h"

#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "ATen/ATen.h"
#include "ATen/Parallel.h"
#include "gtest/gtest.h"
#include "ops/nn/aten_order_test_support.h"
#include "rapidcheck.h"
#include "rapidcheck/gtest.h"

namespace static_runtime {
namespace ops {
namespace {

// [n, channels, spatial] values around a random mean per channel; some
// special.
at::Tensor Input(int64_t n, int64_t channels, int64_t spatial) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> special = {nan, 0.f, -0.f, inf, -inf, 3e38f, -3e38f, 1e-40f};
  at::Tensor x = at::empty({n, channels, spatial}, at::kFloat);
  float* data = x.data_ptr<float>();
  const bool with_special = *rc::gen::inRange(0, 5) == 0;
  for (int64_t row = 0; row < n * channels; ++row) {
    const float center = static_cast<float>(*rc::gen::inRange(-1000, 1000)) / 10.f;
    const float spread = *rc::gen::elementOf(std::vector<float>{1e-3f, 1.f, 30.f});
    for (int64_t i = 0; i < spatial; ++i) {
      data[row * spatial + i] =
          with_special && *rc::gen::inRange(0, 50) == 0
              ? *rc::gen::elementOf(special)
              : center + static_cast<float>(*rc::gen::inRange(-10000, 10000)) / 10000.f * spread;
    }
  }
  return x;
}

at::Tensor RandomVector(int64_t n) {
  return at::randn({n}, at::detail::createCPUGenerator(*rc::gen::inRange(0, 1000)));
}

TEST(GroupNormRowsTest, EveryCandidateMatchesAtenBitForBit) {
  if (GroupNormRowsForThisCpu().run == nullptr) {
    GTEST_SKIP() << "ATen's own group norm is the only exact one here";
  }
  for (const GroupNormRowsKernel& kernel : GroupNormRowsCandidates()) {
    const bool ok = rc::check(kernel.name, [&kernel] {
      const int64_t n = *rc::gen::inRange(1, 4);
      const int64_t groups = *rc::gen::inRange(1, 5);
      const int64_t channels = groups * *rc::gen::inRange(1, 5);
      // Mostly short groups, some of many chunks of 16 vectors.
      const int64_t spatial =
          *rc::gen::inRange(0, 4) == 0 ? *rc::gen::inRange(1, 6000) : *rc::gen::inRange(1, 200);
      const at::Tensor x = Input(n, channels, spatial);
      const int affine = *rc::gen::inRange(0, 4);
      const at::Tensor gamma = affine & 1 ? RandomVector(channels) : at::Tensor();
      const at::Tensor beta = affine & 2 ? RandomVector(channels) : at::Tensor();
      const float eps = *rc::gen::elementOf(std::vector<float>{1e-5f, 1e-8f, 0.1f});
      const bool in_place = *rc::gen::arbitrary<bool>();
      at::Tensor y = in_place ? x.clone() : at::empty_like(x);
      at::Tensor mean = at::empty({n, groups});
      at::Tensor rstd = at::empty({n, groups});
      const GroupNormRows rows{in_place ? y.data_ptr<float>() : x.data_ptr<float>(),
                               gamma.defined() ? gamma.data_ptr<float>() : nullptr,
                               beta.defined() ? beta.data_ptr<float>() : nullptr,
                               y.data_ptr<float>(),
                               mean.data_ptr<float>(),
                               rstd.data_ptr<float>(),
                               channels / groups,
                               spatial,
                               groups,
                               eps};
      kernel.run(rows, 0, n * groups);
      const auto aten = at::native_group_norm(x, gamma, beta, n, channels, spatial, groups, eps);
      RC_ASSERT(SameBitsOrBothNan(y, std::get<0>(aten)));
      RC_ASSERT(SameBitsOrBothNan(mean, std::get<1>(aten)));
      RC_ASSERT(SameBitsOrBothNan(rstd, std::get<2>(aten)));
    });
    EXPECT_TRUE(ok) << kernel.name;
  }
}

TEST(GroupNormRowsTest, FastGroupNormIntoMatchesGroupNormOnTwoThreads) {
  const int threads = at::get_num_threads();
  at::set_num_threads(2);
  const at::Tensor x = at::randn({3, 64, 1001}) * 4 + 7;
  const at::Tensor gamma = at::randn({64});
  const at::Tensor beta = at::randn({64});
  for (int64_t groups : {1, 8}) {
    at::Tensor out = at::empty_like(x);
    at::Tensor mean = at::empty({3, groups});
    at::Tensor rstd = at::empty({3, groups});
    FastGroupNormInto(x, gamma, beta, 3, 64, 1001, groups, 1e-8, out, mean, rstd);
    EXPECT_TRUE(at::equal(out, at::group_norm(x, groups, gamma, beta, 1e-8))) << groups;
  }
  at::set_num_threads(threads);
}

TEST(GroupNormRowsTest, FastGroupNormIntoTakesAtensKernelForDouble) {
  const at::Tensor x = at::randn({2, 4, 33}, at::kDouble);
  at::Tensor out = at::empty_like(x);
  at::Tensor mean = at::empty({2, 2}, at::kDouble);
  at::Tensor rstd = at::empty({2, 2}, at::kDouble);
  FastGroupNormInto(x, at::Tensor(), at::Tensor(), 2, 4, 33, 2, 1e-5, out, mean, rstd);
  EXPECT_TRUE(at::equal(out, at::group_norm(x, 2, {}, {}, 1e-5)));
}

// A kernel is chosen on every CPU with AVX2 whose ATen runs vector kernels
// (LibTorch 1.13's group norm is its AVX2 kernel under both AVX2 and
// AVX512): ATen's AVX2 order on AVX-512 registers where the CPU has them.
TEST(GroupNormRowsTest, IsChosenWhereAtenRunsVectorKernels) {
  EXPECT_EQ(GroupNormRowsForThisCpu().name, ExpectedAvx2OrderKernel()) << at::show_config();
}

}  // namespace
}  // namespace ops
}  // namespace static_runtime
