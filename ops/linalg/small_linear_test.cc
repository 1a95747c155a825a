// ops::SmallLinear against the order it documents, bit for bit: for each
// result, fused multiply-adds over k in order starting from zero, then the
// bias, then relu (NaN kept: row 0 is NaN), over shapes whose rows and columns
// leave every tail of the 4-row, 16- and 8-column blocks (and, below 4 rows,
// the 64-column ones).
#include "ops/linalg/small_linear.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace static_runtime {
namespace ops {
namespace {

float Expected(const std::vector<float>& x, const std::vector<float>& w, const float* bias,
               int64_t r, int64_t j, int64_t k, bool relu) {
  float acc = 0.f;
  for (int64_t i = 0; i < k; ++i) acc = std::fma(x[r * k + i], w[j * k + i], acc);
  if (bias != nullptr) acc += bias[j];
  return relu && acc < 0.f ? 0.f : acc;
}

TEST(SmallLinearTest, SumsInTheDocumentedOrder) {
  if (!SmallLinear::Available()) GTEST_SKIP() << "no AVX2 and FMA on this CPU";
  std::mt19937 rng(7);
  std::normal_distribution<float> normal;
  for (const int64_t rows : {1, 3, 4, 5, 9}) {
    for (const int64_t n : {1, 7, 8, 9, 16, 17, 24, 33, 60, 64, 65, 130}) {
      for (const int64_t k : {1, 5, 64}) {
        for (const bool with_bias : {false, true}) {
          for (const bool relu : {false, true}) {
            std::vector<float> x(rows * k), w(n * k), bias(n);
            for (float& v : x) v = normal(rng);
            for (float& v : w) v = normal(rng);
            for (float& v : bias) v = normal(rng);
            x[0] = std::numeric_limits<float>::quiet_NaN();  // row 0 is NaN throughout
            const float* b = with_bias ? bias.data() : nullptr;
            const SmallLinear linear(w.data(), b, n, k);
            std::vector<float> y(rows * n, -1.f);
            linear.Run(x.data(), rows, y.data(), relu);
            for (int64_t r = 0; r < rows; ++r) {
              for (int64_t j = 0; j < n; ++j) {
                const float expected = Expected(x, w, b, r, j, k, relu);
                const float actual = y[r * n + j];
                const bool same = std::isnan(expected)
                                      ? std::isnan(actual)
                                      : std::memcmp(&expected, &actual, sizeof(float)) == 0;
                ASSERT_TRUE(same) << "rows " << rows << " n " << n << " k " << k << " bias "
                                  << with_bias << " relu " << relu << " at (" << r << ", " << j
                                  << "): " << actual << " vs " << expected;
              }
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace ops
}  // namespace static_runtime
