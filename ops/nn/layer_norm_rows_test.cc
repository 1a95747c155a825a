// Every layer-norm kernel this CPU runs (ops/nn/layer_norm_rows.h) against
// at::native_layer_norm over the last dimension, bit for bit (NaNs by
// position): output, mean and rstd, on rows of random counts and lengths
// holding infinities, NaN, zeros, huge and tiny values, with and without
// gamma and beta, in and out of place; FastLayerNormInto as LayerNormInto,
// on two threads; which kernel is chosen.
#include "ops/nn/layer_norm_rows.h"

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

// `rows` rows of `n` values around a random mean per row; some special.
at::Tensor Rows(int64_t rows, int64_t n) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> special = {nan, 0.f, -0.f, inf, -inf, 3e38f, -3e38f, 1e-40f};
  at::Tensor x = at::empty({rows, n}, at::kFloat);
  float* data = x.data_ptr<float>();
  const bool with_special = *rc::gen::inRange(0, 5) == 0;
  for (int64_t r = 0; r < rows; ++r) {
    const float center = static_cast<float>(*rc::gen::inRange(-1000, 1000)) / 10.f;
    const float spread = *rc::gen::elementOf(std::vector<float>{1e-3f, 1.f, 30.f});
    for (int64_t i = 0; i < n; ++i) {
      data[r * n + i] =
          with_special && *rc::gen::inRange(0, 10) == 0
              ? *rc::gen::elementOf(special)
              : center + static_cast<float>(*rc::gen::inRange(-10000, 10000)) / 10000.f * spread;
    }
  }
  return x;
}

at::Tensor RandomVector(int64_t n) {
  at::Tensor v = at::empty({n}, at::kFloat);
  for (int64_t i = 0; i < n; ++i) {
    v[i] = static_cast<float>(*rc::gen::inRange(-20000, 20000)) / 10000.f;
  }
  return v;
}

struct Result {
  at::Tensor y, mean, rstd;
};

Result RunRows(LayerNormRowsFn kernel, const at::Tensor& x, const at::Tensor& gamma,
               const at::Tensor& beta, float eps, bool in_place) {
  Result result{in_place ? x.clone() : at::empty_like(x), at::empty({x.size(0)}),
                at::empty({x.size(0)})};
  const LayerNormRows rows{in_place ? result.y.data_ptr<float>() : x.data_ptr<float>(),
                           gamma.defined() ? gamma.data_ptr<float>() : nullptr,
                           beta.defined() ? beta.data_ptr<float>() : nullptr,
                           result.y.data_ptr<float>(),
                           result.mean.data_ptr<float>(),
                           result.rstd.data_ptr<float>(),
                           x.size(1),
                           eps};
  kernel(rows, 0, x.size(0));
  return result;
}

// Every candidate this CPU runs, where ATen's kernel is a vector one (one
// of them is chosen).
std::vector<LayerNormRowsKernel> CandidatesOrSkip() {
  if (LayerNormRowsForThisCpu().run == nullptr) return {};
  return LayerNormRowsCandidates();
}

TEST(LayerNormRowsTest, EveryCandidateMatchesAtenBitForBit) {
  const std::vector<LayerNormRowsKernel> candidates = CandidatesOrSkip();
  if (candidates.empty()) GTEST_SKIP() << "ATen's own layer norm is the only exact one here";
  for (const LayerNormRowsKernel& kernel : candidates) {
    const bool ok = rc::check(kernel.name, [&kernel] {
      const int64_t rows = *rc::gen::inRange(1, 40);
      // Mostly short rows, some past several chunks of 16 vectors.
      const int64_t n =
          *rc::gen::inRange(0, 4) == 0 ? *rc::gen::inRange(1, 5000) : *rc::gen::inRange(1, 300);
      const at::Tensor x = Rows(rows, n);
      const int affine = *rc::gen::inRange(0, 4);
      const at::Tensor gamma = affine & 1 ? RandomVector(n) : at::Tensor();
      const at::Tensor beta = affine & 2 ? RandomVector(n) : at::Tensor();
      const float eps = *rc::gen::elementOf(std::vector<float>{1e-5f, 1e-6f, 1e-12f, 0.1f});
      const bool in_place = *rc::gen::arbitrary<bool>();
      const Result ours = RunRows(kernel.run, x, gamma, beta, eps, in_place);
      const auto aten = at::native_layer_norm(x, {n}, gamma, beta, eps);
      RC_ASSERT(SameBitsOrBothNan(ours.y, std::get<0>(aten)));
      RC_ASSERT(SameBitsOrBothNan(ours.mean, std::get<1>(aten).view({-1})));
      RC_ASSERT(SameBitsOrBothNan(ours.rstd, std::get<2>(aten).view({-1})));
    });
    EXPECT_TRUE(ok) << kernel.name;
  }
}

TEST(LayerNormRowsTest, FastLayerNormIntoMatchesLayerNormOnTwoThreads) {
  const int threads = at::get_num_threads();
  at::set_num_threads(2);
  const at::Tensor x = at::randn({3001, 96}) * 4 + 7;
  const at::Tensor gamma = at::randn({96});
  const at::Tensor beta = at::randn({96});
  at::Tensor out = at::empty_like(x);
  at::Tensor mean = at::empty({3001});
  at::Tensor rstd = at::empty({3001});
  FastLayerNormInto(x, gamma, beta, 3001, 96, 1e-5, out, mean, rstd);
  at::set_num_threads(threads);
  EXPECT_TRUE(at::equal(out, at::layer_norm(x, {96}, gamma, beta, 1e-5)));
}

TEST(LayerNormRowsTest, FastLayerNormIntoTakesAtensKernelForDouble) {
  const at::Tensor x = at::randn({5, 33}, at::kDouble);
  at::Tensor out = at::empty_like(x);
  at::Tensor mean = at::empty({5}, at::kDouble);
  at::Tensor rstd = at::empty({5}, at::kDouble);
  FastLayerNormInto(x, at::Tensor(), at::Tensor(), 5, 33, 1e-5, out, mean, rstd);
  EXPECT_TRUE(at::equal(out, at::layer_norm(x, {33}, {}, {}, 1e-5)));
}

// A kernel is chosen on every CPU with AVX2 whose ATen runs vector kernels
// (LibTorch 1.13's layer norm is its AVX2 kernel under both AVX2 and
// AVX512): ATen's AVX2 order on AVX-512 registers where the CPU has them.
TEST(LayerNormRowsTest, IsChosenWhereAtenRunsVectorKernels) {
  EXPECT_EQ(LayerNormRowsForThisCpu().name, ExpectedAvx2OrderKernel()) << at::show_config();
}

}  // namespace
}  // namespace ops
}  // namespace static_runtime
