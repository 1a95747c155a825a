// sgemm_orders: ChainProduct (with and without paired rows, and its AVX2
// loops, which AVX-512 CPUs take for paired rows only, on their own) and
// LaneTreeProduct give, bit for bit, the sums their header describes, written out here one scalar
// operation at a time (std::fma, float additions): random shapes across the k blocks (of several
// sizes, the rests halved either way), the lane groups (16), the tiles of panels and the trees'
// groups of four outputs and rows, with and without a bias, rows further apart than k; values of
// mixed magnitudes and signs, and rows of zeros of either sign.
#include "ops/blas_replica/sgemm_orders.h"

#include <cmath>
#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "ops/blas_replica/chain_avx2.h"
#include "rapidcheck.h"
#include "rapidcheck/gtest.h"

namespace static_runtime {
namespace {

using ops::blas_replica::ChainAvailable;
using ops::blas_replica::ChainProduct;
using ops::blas_replica::ChainProductAvx2;
using ops::blas_replica::KBlocks;
using ops::blas_replica::LaneTreeAvailable;
using ops::blas_replica::LaneTreeProduct;
using ops::blas_replica::PackPanels;

struct Case {
  int64_t rows, n, k, x_row_stride;
  std::vector<float> weight, x, bias;  // bias empty: none
  const float* Bias() const { return bias.empty() ? nullptr : bias.data(); }
  float X(int64_t r, int64_t p) const { return x[r * x_row_stride + p]; }
  float W(int64_t j, int64_t p) const { return weight[j * k + p]; }
};

std::vector<float> Values(int64_t count) {
  std::vector<float> values(count);
  for (float& value : values) {
    const float mantissa = static_cast<float>(*rc::gen::inRange(-(1 << 23), 1 << 23)) / (1 << 23);
    value = std::ldexp(mantissa, *rc::gen::inRange(-6, 7));
  }
  return values;
}

Case DrawCase() {
  Case c;
  c.rows = *rc::gen::inRange<int64_t>(1, 11);
  // Up to 13 panels of 16 outputs: a row's full tiles of panels and the rest.
  c.n = *rc::gen::weightedOneOf<int64_t>(
      {{2, rc::gen::inRange<int64_t>(1, 70)}, {1, rc::gen::inRange<int64_t>(70, 210)}});
  c.k = *rc::gen::weightedOneOf<int64_t>({{3, rc::gen::inRange<int64_t>(1, 80)},
                                          {1, rc::gen::inRange<int64_t>(300, 700)},
                                          {1, rc::gen::inRange<int64_t>(630, 1000)}});
  c.x_row_stride = c.k + *rc::gen::element<int64_t>(0, 0, 5);
  c.weight = Values(c.n * c.k);
  c.x = Values(c.rows * c.x_row_stride);
  if (*rc::gen::inRange(0, 3) == 0) {
    const float zero = *rc::gen::element(0.0f, -0.0f);
    const int64_t row = *rc::gen::inRange<int64_t>(0, c.rows);
    for (int64_t p = 0; p < c.k; ++p) c.x[row * c.x_row_stride + p] = zero;
  }
  if (*rc::gen::arbitrary<bool>()) c.bias = Values(c.n);
  return c;
}

// OpenBLAS's level-3 blocks of k, as the header states them.
std::vector<std::pair<int64_t, int64_t>> Blocks(int64_t k, int64_t q, bool threaded) {
  std::vector<std::pair<int64_t, int64_t>> blocks;
  int64_t start = 0;
  while (start < k) {
    int64_t length = k - start;
    if (length >= 2 * q) length = q;
    if (length > q) length = threaded ? (length + 1) / 2 : (length / 2 + 15) / 16 * 16;
    blocks.emplace_back(start, start + length);
    start += length;
  }
  return blocks;
}

// The chain over k = begin, begin + step, ... below end.
float Chain(const Case& c, int64_t r, int64_t j, int64_t begin, int64_t end, int64_t step) {
  float chain = 0.0f;
  for (int64_t p = begin; p < end; p += step) chain = std::fma(c.W(j, p), c.X(r, p), chain);
  return chain;
}

float ChainReference(const std::vector<std::pair<int64_t, int64_t>>& blocks, int64_t paired_rows,
                     const Case& c, int64_t r, int64_t j) {
  float sum = c.bias.empty() ? 0.0f : c.bias[j];
  for (const auto& [begin, end] : blocks) {
    sum = sum + (r < paired_rows ? Chain(c, r, j, begin, end, 2) + Chain(c, r, j, begin + 1, end, 2)
                                 : Chain(c, r, j, begin, end, 1));
  }
  return sum;
}

float LaneTreeReference(const Case& c, int64_t r, int64_t j) {
  float lane[16] = {};
  const int64_t padded = (c.k + 15) / 16 * 16;
  for (int64_t p = 0; p < padded; ++p) {
    const float w = p < c.k ? c.W(j, p) : 0.0f, x = p < c.k ? c.X(r, p) : 0.0f;
    lane[p % 16] = std::fma(w, x, lane[p % 16]);
  }
  float total;
  if (j < c.n / 4 * 4 || r < c.rows / 4 * 4) {
    float group[4];
    for (int g = 0; g < 4; ++g) {
      group[g] = (lane[4 * g] + lane[4 * g + 1]) + (lane[4 * g + 2] + lane[4 * g + 3]);
    }
    total = (group[0] + group[1]) + (group[2] + group[3]);
  } else {
    for (int width = 8; width >= 2; width /= 2) {
      for (int l = 0; l < width; ++l) lane[l] = lane[l] + lane[l + width];
    }
    total = lane[0] + lane[1];
  }
  return c.bias.empty() ? total : c.bias[j] + total;
}

template <typename Reference>
void ExpectSameBits(const Case& c, const std::vector<float>& y, Reference reference) {
  for (int64_t r = 0; r < c.rows; ++r) {
    for (int64_t j = 0; j < c.n; ++j) {
      const float expected = reference(c, r, j), actual = y[r * c.n + j];
      RC_ASSERT(std::memcmp(&expected, &actual, sizeof(float)) == 0);
    }
  }
}

RC_GTEST_PROP(SgemmOrders, ChainIsTheDescribedSum, ()) {
  if (!ChainAvailable()) return;  // the products never run here
  const Case c = DrawCase();
  const int64_t q = *rc::gen::element<int64_t>(320, 448, 200);
  const bool threaded = *rc::gen::arbitrary<bool>();
  const int64_t paired_rows = *rc::gen::element<int64_t>(0, c.rows / 4 * 4);
  const std::vector<std::pair<int64_t, int64_t>> blocks = Blocks(c.k, q, threaded);
  RC_CLASSIFY(blocks.size() > 1, "several blocks of k");
  RC_CLASSIFY(paired_rows > 0, "paired rows");
  std::vector<int64_t> ends;
  for (const auto& block : blocks) ends.push_back(block.second);
  RC_ASSERT(KBlocks(c.k, q, threaded) == ends);
  const std::vector<float> panels = PackPanels(c.weight.data(), c.n, c.k);
  const auto reference = [&blocks, paired_rows](const Case& c, int64_t r, int64_t j) {
    return ChainReference(blocks, paired_rows, c, r, j);
  };
  std::vector<float> y(c.rows * c.n, NAN);
  ChainProduct(ends, paired_rows, panels.data(), c.Bias(), c.x.data(), c.x_row_stride, c.rows, c.n,
               c.k, y.data());
  ExpectSameBits(c, y, reference);
  std::vector<float> avx2_y(c.rows * c.n, NAN);
  ChainProductAvx2(ends, paired_rows, panels.data(), c.Bias(), c.x.data(), c.x_row_stride, c.rows,
                   c.n, c.k, avx2_y.data());
  ExpectSameBits(c, avx2_y, reference);
}

RC_GTEST_PROP(SgemmOrders, LaneTreeIsTheDescribedSum, ()) {
  if (!LaneTreeAvailable()) return;  // the products never run here
  const Case c = DrawCase();
  std::vector<float> y(c.rows * c.n, NAN);
  LaneTreeProduct(c.weight.data(), c.Bias(), c.x.data(), c.x_row_stride, c.rows, c.n, c.k,
                  y.data());
  ExpectSameBits(c, y, LaneTreeReference);
}

}  // namespace
}  // namespace static_runtime
