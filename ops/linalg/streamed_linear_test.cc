// ops::StreamedLinear against the order it documents, bit for bit, in each
// of its loops this CPU runs: for each result, fused multiply-adds over k in
// order from zero, then the bias (+0 without one); over random shapes (every
// tail of the 16-output panels and of the 8- and 16-row passes), rows at uneven places (as a
// strided convolution's pixels) and results in rows wider than n, whose extra columns must stay
// untouched; and the same results for rows one after another, and for
// weights split across two intra-op threads.
#include "ops/linalg/streamed_linear.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "ATen/Parallel.h"
#include "gtest/gtest.h"
#include "rapidcheck.h"
#include "rapidcheck/gtest.h"

namespace static_runtime {
namespace ops {
namespace {

bool SameFloat(float a, float b) {
  return std::isnan(a) ? std::isnan(b) : std::memcmp(&a, &b, sizeof(float)) == 0;
}

RC_GTEST_PROP(StreamedLinearTest, SumsInTheDocumentedOrder, ()) {
  if (!StreamedLinear::Available()) return;  // no AVX2 and FMA: never run here
  const auto loops =
      *rc::gen::element(StreamedLinear::Loops::kWidest, StreamedLinear::Loops::kAvx2);
  const int64_t rows = *rc::gen::inRange<int64_t>(1, 40);
  const int64_t n = *rc::gen::inRange<int64_t>(1, 70);
  const int64_t k = *rc::gen::inRange<int64_t>(1, 300);
  const bool with_bias = *rc::gen::arbitrary<bool>();
  const int64_t y_row_stride = n + *rc::gen::inRange<int64_t>(0, 5);
  const auto value = rc::gen::map(rc::gen::inRange(-1000, 1001), [](int v) { return v / 97.f; });
  const std::vector<float> w = *rc::gen::container<std::vector<float>>(n * k, value);
  const std::vector<float> bias = *rc::gen::container<std::vector<float>>(n, value);
  // Each row at its own offset in one buffer: up to 3 floats between rows.
  std::vector<int64_t> offsets;
  int64_t end = 0;
  for (int64_t r = 0; r < rows; ++r) {
    end += *rc::gen::inRange<int64_t>(0, 4);
    offsets.push_back(end);
    end += k;
  }
  std::vector<float> x = *rc::gen::container<std::vector<float>>(end, value);
  if (*rc::gen::arbitrary<bool>()) x[offsets[0]] = std::numeric_limits<float>::quiet_NaN();
  std::vector<const float*> x_rows;
  for (const int64_t offset : offsets) x_rows.push_back(x.data() + offset);

  const float* b = with_bias ? bias.data() : nullptr;
  const StreamedLinear linear(w.data(), b, n, k, loops);
  const float kUntouched = -7.f;
  std::vector<float> y(rows * y_row_stride, kUntouched);
  linear.Run(x_rows.data(), rows, y.data(), y_row_stride);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < y_row_stride; ++j) {
      float expected = kUntouched;
      if (j < n) {
        float acc = 0.f;
        for (int64_t i = 0; i < k; ++i) acc = std::fma(x_rows[r][i], w[j * k + i], acc);
        expected = acc + (b != nullptr ? b[j] : 0.f);
      }
      RC_ASSERT(SameFloat(y[r * y_row_stride + j], expected));
    }
  }
  // The rows one after another: the same results.
  std::vector<float> packed_x;
  for (const float* row : x_rows) packed_x.insert(packed_x.end(), row, row + k);
  std::vector<float> packed_y(rows * n, kUntouched);
  linear.Run(packed_x.data(), rows, packed_y.data());
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < n; ++j)
      RC_ASSERT(SameFloat(packed_y[r * n + j], y[r * y_row_stride + j]));
  }
}

// Weights large enough to split across two threads (every tail of the last
// panel, one or more passes of rows): each output as one thread sums it
// alone.
RC_GTEST_PROP(StreamedLinearTest, TwoThreadsGiveTheSameBits, ()) {
  if (!StreamedLinear::Available()) return;
  const auto loops =
      *rc::gen::element(StreamedLinear::Loops::kWidest, StreamedLinear::Loops::kAvx2);
  const int64_t k = *rc::gen::inRange<int64_t>(256, 1100);
  const int64_t n = StreamedLinear::kSplitWeights / k + *rc::gen::inRange<int64_t>(0, 200);
  const int64_t rows = *rc::gen::inRange<int64_t>(1, 20);
  const auto value = rc::gen::map(rc::gen::inRange(-1000, 1001), [](int v) { return v / 97.f; });
  const std::vector<float> w = *rc::gen::container<std::vector<float>>(n * k, value);
  const std::vector<float> bias = *rc::gen::container<std::vector<float>>(n, value);
  const std::vector<float> x = *rc::gen::container<std::vector<float>>(rows * k, value);
  const StreamedLinear linear(w.data(), bias.data(), n, k, loops);
  std::vector<float> one(rows * n), two(rows * n);
  const int threads = at::get_num_threads();
  at::set_num_threads(1);
  linear.Run(x.data(), rows, one.data());
  at::set_num_threads(2);
  linear.Run(x.data(), rows, two.data());
  at::set_num_threads(threads);
  for (int64_t i = 0; i < rows * n; ++i) RC_ASSERT(SameFloat(one[i], two[i]));
  // The first result in the documented order.
  float acc = 0.f;
  for (int64_t i = 0; i < k; ++i) acc = std::fma(x[i], w[i], acc);
  RC_ASSERT(SameFloat(two[0], acc + bias[0]));
}

}  // namespace
}  // namespace ops
}  // namespace static_runtime
