// ops/rnn/fast_gate_math.h: the fast-gates steps' tanh and sigmoid are within
// their declared bounds of the exact functions (float64) on a sweep of every
// float magnitude and a dense grid where the gates live, on each ISA this CPU
// runs; NaN, infinities and signed zeros come out as the functions give them.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "ops/rnn/lstm_gates.h"

namespace static_runtime {
namespace {

constexpr double kEps32 = 1.0 / (1 << 23);
const double kMin32 = std::numeric_limits<float>::min();

// Floats of every magnitude (a stride through the bit patterns of the
// positive ones, and their negatives), a dense grid over [-12, 12], the
// points where FastTanh changes branch, and the ends of exp's clamp.
std::vector<float> SweepInputs() {
  std::vector<float> x;
  for (uint32_t bits = 0; bits < 0x7f800000u; bits += 997) {
    float value;
    std::memcpy(&value, &bits, sizeof(value));
    x.push_back(value);
    x.push_back(-value);
  }
  for (int i = -1200000; i <= 1200000; ++i) x.push_back(i * 1e-5f);
  for (float edge : {0.4f, 10.f, 87.3f, 88.f}) {
    for (float value = edge, other = edge; value > edge * 0.999f;) {
      x.push_back(value);
      x.push_back(-value);
      x.push_back(other);
      x.push_back(-other);
      value = std::nextafter(value, 0.f);
      other = std::nextafter(other, 100.f);
    }
  }
  return x;
}

struct Worst {
  double ratio = 0;  // error / allowed
  float at = 0;
};

TEST(FastGateMath, WithinTheirBoundsOnEveryIsa) {
  const std::vector<ops::FastRnnSteps>& isas = ops::FastRnnStepsThisCpuRuns();
  if (isas.empty()) GTEST_SKIP() << "no AVX2 on this CPU";
  const std::vector<float> x = SweepInputs();
  std::vector<float> tanh(x.size()), sigmoid(x.size());
  for (const ops::FastRnnSteps& isa : isas) {
    isa.tanh_row(x.data(), tanh.data(), static_cast<int64_t>(x.size()));
    isa.sigmoid_row(x.data(), sigmoid.data(), static_cast<int64_t>(x.size()));
    Worst worst_tanh, worst_sigmoid;
    for (size_t i = 0; i < x.size(); ++i) {
      const double exact_tanh = std::tanh(static_cast<double>(x[i]));
      const double exact_sigmoid = 1 / (1 + std::exp(-static_cast<double>(x[i])));
      const double tanh_ratio =
          std::abs(tanh[i] - exact_tanh) / (ops::kFastTanhError * kEps32 * std::abs(exact_tanh));
      const double sigmoid_ratio = std::abs(sigmoid[i] - exact_sigmoid) /
                                   (ops::kFastSigmoidError * kEps32 * exact_sigmoid + kMin32);
      if (exact_tanh != 0 && tanh_ratio > worst_tanh.ratio) worst_tanh = {tanh_ratio, x[i]};
      if (sigmoid_ratio > worst_sigmoid.ratio) worst_sigmoid = {sigmoid_ratio, x[i]};
      if (exact_tanh == 0) {
        ASSERT_EQ(tanh[i], 0.f) << isa.steps.name;
        ASSERT_EQ(std::signbit(tanh[i]), std::signbit(x[i])) << isa.steps.name;
      }
    }
    EXPECT_LE(worst_tanh.ratio, 1) << isa.steps.name << ": tanh at " << worst_tanh.at;
    EXPECT_LE(worst_sigmoid.ratio, 1) << isa.steps.name << ": sigmoid at " << worst_sigmoid.at;
    // The bounds are not loose by much: the largest errors use a good part.
    EXPECT_GE(worst_tanh.ratio, 0.05) << isa.steps.name;
    EXPECT_GE(worst_sigmoid.ratio, 0.05) << isa.steps.name;
    std::printf("%s: largest error / bound: tanh %.3f (at %g), sigmoid %.3f (at %g)\n",
                isa.steps.name, worst_tanh.ratio, worst_tanh.at, worst_sigmoid.ratio,
                worst_sigmoid.at);
  }
}

TEST(FastGateMath, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x = {nan, -nan, inf, -inf, 0.f, -0.f, 1e-30f, -1e-30f, 100.f, -100.f};
  for (const ops::FastRnnSteps& isa : ops::FastRnnStepsThisCpuRuns()) {
    std::vector<float> tanh(x.size()), sigmoid(x.size());
    isa.tanh_row(x.data(), tanh.data(), static_cast<int64_t>(x.size()));
    isa.sigmoid_row(x.data(), sigmoid.data(), static_cast<int64_t>(x.size()));
    EXPECT_TRUE(std::isnan(tanh[0]) && std::isnan(tanh[1])) << isa.steps.name;
    EXPECT_TRUE(std::isnan(sigmoid[0]) && std::isnan(sigmoid[1])) << isa.steps.name;
    EXPECT_EQ(tanh[2], 1.f);
    EXPECT_EQ(tanh[3], -1.f);
    EXPECT_EQ(sigmoid[2], 1.f);
    EXPECT_LE(sigmoid[3], kMin32);
    EXPECT_GE(sigmoid[3], 0.f);
    EXPECT_TRUE(tanh[4] == 0 && !std::signbit(tanh[4]));
    EXPECT_TRUE(tanh[5] == 0 && std::signbit(tanh[5]));
    EXPECT_EQ(tanh[6], 1e-30f);
    EXPECT_EQ(tanh[7], -1e-30f);
    EXPECT_EQ(sigmoid[4], 0.5f);
    EXPECT_EQ(tanh[8], 1.f);
    EXPECT_EQ(sigmoid[8], 1.f);
    EXPECT_EQ(tanh[9], -1.f);
  }
}

}  // namespace
}  // namespace static_runtime
