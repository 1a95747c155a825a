#include "ops/linalg/small_linear.h"

#include <immintrin.h>

#include <algorithm>

#include "ops/core/cpu_isa.h"

namespace static_runtime {
namespace ops {
namespace {

constexpr int64_t kLanes = 8;

// kRows rows of y, columns [n0, n0 + kVecs * 8) of the padded result; only
// the first `valid` columns of the block are stored.
template <int kRows, int kVecs>
void Block(const float* x, int64_t k, const float* packed, int64_t padded_n, const float* bias,
           int64_t n0, int64_t valid, float* y, int64_t n, bool relu) {
  __m256 acc[kRows][kVecs];
  // (Unrolled so that the accumulators stay in registers.)
#pragma GCC unroll 4
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
    for (int v = 0; v < kVecs; ++v) acc[r][v] = _mm256_setzero_ps();
  }
  for (int64_t i = 0; i < k; ++i) {
    __m256 w[kVecs];
#pragma GCC unroll 8
    for (int v = 0; v < kVecs; ++v) w[v] = _mm256_loadu_ps(packed + i * padded_n + n0 + v * kLanes);
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r) {
      const __m256 xb = _mm256_broadcast_ss(x + r * k + i);
#pragma GCC unroll 8
      for (int v = 0; v < kVecs; ++v) acc[r][v] = _mm256_fmadd_ps(xb, w[v], acc[r][v]);
    }
  }
  const __m256 zero = _mm256_setzero_ps();
#pragma GCC unroll 4
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
    for (int v = 0; v < kVecs; ++v) {
      acc[r][v] = _mm256_add_ps(acc[r][v], _mm256_loadu_ps(bias + n0 + v * kLanes));
      // Zero where acc < 0; NaN fails the comparison and stays.
      if (relu)
        acc[r][v] = _mm256_blendv_ps(acc[r][v], zero, _mm256_cmp_ps(acc[r][v], zero, _CMP_LT_OQ));
    }
  }
  if (valid == kVecs * kLanes) {
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
      for (int v = 0; v < kVecs; ++v) _mm256_storeu_ps(y + r * n + n0 + v * kLanes, acc[r][v]);
    }
    return;
  }
  alignas(32) float lanes[kRows][kVecs * kLanes];
#pragma GCC unroll 4
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
    for (int v = 0; v < kVecs; ++v) _mm256_store_ps(lanes[r] + v * kLanes, acc[r][v]);
  }
  for (int r = 0; r < kRows; ++r) std::copy(lanes[r], lanes[r] + valid, y + r * n + n0);
}

// Rows [0, rows) in groups of 4 (then the rest one by one), for one block of
// columns of kVecs vectors.
template <int kVecs>
void Columns(const float* x, int64_t rows, int64_t k, const float* packed, int64_t padded_n,
             const float* bias, int64_t n0, int64_t valid, float* y, int64_t n, bool relu) {
  int64_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    Block<4, kVecs>(x + r * k, k, packed, padded_n, bias, n0, valid, y + r * n, n, relu);
  }
  for (; r < rows; ++r) {
    Block<1, kVecs>(x + r * k, k, packed, padded_n, bias, n0, valid, y + r * n, n, relu);
  }
}

}  // namespace

bool SmallLinear::Available() { return CpuRunsAvx2(); }

SmallLinear::SmallLinear(const float* weight, const float* bias, int64_t n, int64_t k)
    : n_(n),
      k_(k),
      padded_n_((n + kLanes - 1) / kLanes * kLanes),
      packed_(k * padded_n_, 0.f),
      padded_bias_(padded_n_, 0.f),
      charge_((packed_.size() + padded_bias_.size()) * sizeof(float)) {
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < k; ++i) packed_[i * padded_n_ + j] = weight[j * k + i];
    if (bias != nullptr) padded_bias_[j] = bias[j];
  }
}

void SmallLinear::Run(const float* x, int64_t rows, float* y, bool relu) const {
  int64_t first = 0;
  if (rows < 4) {
    // One row at a time: with two vectors of columns the fused multiply-adds
    // of each accumulator wait on each other (a product of one row ran at
    // a quarter of the FMA units' rate); eight vectors keep them busy.
    for (; first + 8 * kLanes <= padded_n_; first += 8 * kLanes) {
      const int64_t valid = std::min<int64_t>(8 * kLanes, n_ - first);
      for (int64_t r = 0; r < rows; ++r) {
        Block<1, 8>(x + r * k_, k_, packed_.data(), padded_n_, padded_bias_.data(), first, valid,
                    y + r * n_, n_, relu);
      }
    }
  }
  for (int64_t n0 = first; n0 < padded_n_; n0 += 2 * kLanes) {
    const int64_t valid = std::min<int64_t>(2 * kLanes, n_ - n0);
    if (padded_n_ - n0 >= 2 * kLanes) {
      Columns<2>(x, rows, k_, packed_.data(), padded_n_, padded_bias_.data(), n0, valid, y, n_,
                 relu);
    } else {
      Columns<1>(x, rows, k_, packed_.data(), padded_n_, padded_bias_.data(), n0, valid, y, n_,
                 relu);
    }
  }
}

}  // namespace ops
}  // namespace static_runtime
