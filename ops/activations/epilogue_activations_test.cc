// Every ISA's silu and gelu loops this CPU runs (and so the ones
// SiluInPlace and GeluInPlace use) against float64 within the contract of
// ops/activations/epilogue_activations.h, 4 eps32 (|exact| + |x|), on
// random lengths (whole packs of vectors and partial ones), wide ranges and
// the special values; ATen's silu and gelu must meet the same bound (so it is
// not looser than ATen's own error by construction).
#include "ops/activations/epilogue_activations.h"

#include <cmath>
#include <limits>
#include <string>

#include "ATen/ATen.h"
#include "gtest/gtest.h"
#include "rapidcheck.h"
#include "rapidcheck/gtest.h"

namespace static_runtime {
namespace ops {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

at::Tensor ExactSilu(const at::Tensor& x) {
  const at::Tensor d = x.to(at::kDouble);
  return d * at::sigmoid(d);
}
at::Tensor ExactGelu(const at::Tensor& x) {
  const at::Tensor d = x.to(at::kDouble);
  return d * 0.5 * (1 + at::erf(d * M_SQRT1_2));
}

// "" when every finite element of `actual` is within the contract's bound
// of `exact` (NaN where `exact` is NaN, the same infinities).
std::string OutsideContract(const at::Tensor& x, const at::Tensor& exact,
                            const at::Tensor& actual) {
  const double eps = std::numeric_limits<float>::epsilon();
  const auto xs = x.to(at::kDouble).contiguous();
  const auto es = exact.contiguous();
  const auto as = actual.to(at::kDouble).contiguous();
  for (int64_t i = 0; i < x.numel(); ++i) {
    const double xi = xs.data_ptr<double>()[i], e = es.data_ptr<double>()[i],
                 a = as.data_ptr<double>()[i];
    const bool ok = std::isnan(e)   ? std::isnan(a)
                    : std::isinf(e) ? a == e
                                    : std::abs(a - e) <= 4 * eps * (std::abs(e) + std::abs(xi));
    if (!ok) return c10::str("x = ", xi, ": got ", a, ", exact ", e);
  }
  return "";
}

// Normal values at several scales, a few huge ones and the specials.
at::Tensor DrawInput(int64_t count, double scale) {
  at::Tensor x = at::randn({count}) * scale;
  if (count > 0) {
    const at::Tensor huge = at::rand({count}) < 0.05;
    x = at::where(huge, at::randn({count}) * 200, x);
  }
  return x;
}

RC_GTEST_PROP(EpilogueActivationsProperty, WithinTheContractAsAtenIs, ()) {
  at::manual_seed(*rc::gen::inRange(0, 1 << 20));
  const int64_t count = *rc::gen::inRange(0, 200);
  const double scale = *rc::gen::element(0.01, 1.0, 4.0, 30.0);
  const at::Tensor x = DrawInput(count, scale);
  for (const EpilogueActivationLoops& loops : EpilogueActivationCandidates()) {
    at::Tensor silu = x.clone(), gelu = x.clone();
    loops.silu(silu.data_ptr<float>(), count);
    loops.gelu(gelu.data_ptr<float>(), count);
    RC_LOG() << loops.name << "\n";
    const std::string silu_error = OutsideContract(x, ExactSilu(x), silu);
    RC_ASSERT(silu_error == "");
    const std::string gelu_error = OutsideContract(x, ExactGelu(x), gelu);
    RC_ASSERT(gelu_error == "");
  }
  RC_ASSERT(OutsideContract(x, ExactSilu(x), at::silu(x)) == "");
  RC_ASSERT(OutsideContract(x, ExactGelu(x), at::gelu(x)) == "");
}

TEST(EpilogueActivationsTest, TheWidestLoopsServe) {
  const at::Tensor x = at::randn({1000}) * 4;
  at::Tensor silu = x.clone(), gelu = x.clone(), silu_first = x.clone(), gelu_first = x.clone();
  SiluInPlace(silu.data_ptr<float>(), x.numel());
  GeluInPlace(gelu.data_ptr<float>(), x.numel());
  const EpilogueActivationLoops first = EpilogueActivationCandidates().front();
  first.silu(silu_first.data_ptr<float>(), x.numel());
  first.gelu(gelu_first.data_ptr<float>(), x.numel());
  EXPECT_TRUE(at::equal(silu, silu_first)) << first.name;
  EXPECT_TRUE(at::equal(gelu, gelu_first)) << first.name;
}

TEST(EpilogueActivationsTest, SpecialValuesAsAtenGivesThem) {
  // 16 values, all at once (a partial pack of vectors), then each alone.
  const at::Tensor x = at::tensor({kNaN, kInf, -kInf, 0.0f, -0.0f, -87.5f, -88.5f, -100.0f, 87.5f,
                                   88.5f, 100.0f, -13.0f, -14.0f, 1e-30f, -1e-30f, 3e38f});
  for (const EpilogueActivationLoops& loops : EpilogueActivationCandidates()) {
    for (const bool one_at_a_time : {false, true}) {
      at::Tensor silu = x.clone(), gelu = x.clone();
      if (one_at_a_time) {
        for (int64_t i = 0; i < x.numel(); ++i) {
          loops.silu(silu.data_ptr<float>() + i, 1);
          loops.gelu(gelu.data_ptr<float>() + i, 1);
        }
      } else {
        loops.silu(silu.data_ptr<float>(), x.numel());
        loops.gelu(gelu.data_ptr<float>(), x.numel());
      }
      EXPECT_EQ(OutsideContract(x, ExactSilu(x), silu), "") << loops.name << one_at_a_time;
      EXPECT_EQ(OutsideContract(x, ExactGelu(x), gelu), "") << loops.name << one_at_a_time;
      // NaN and the infinities as ATen gives them.
      for (int64_t i : {0, 1, 2}) {
        const float aten_silu = at::silu(x[i]).item<float>();
        const float aten_gelu = at::gelu(x[i]).item<float>();
        const float ours_silu = silu[i].item<float>(), ours_gelu = gelu[i].item<float>();
        EXPECT_TRUE(std::isnan(aten_silu) ? std::isnan(ours_silu) : ours_silu == aten_silu)
            << loops.name << " " << i;
        EXPECT_TRUE(std::isnan(aten_gelu) ? std::isnan(ours_gelu) : ours_gelu == aten_gelu)
            << loops.name << " " << i;
      }
    }
  }
}

}  // namespace
}  // namespace ops
}  // namespace static_runtime
