#include "ops/linalg/fma_chain_matmul.h"

#include <immintrin.h>

#include <algorithm>
#include <vector>

#include "ops/core/cpu_isa.h"

namespace static_runtime {
namespace ops {

bool FmaChainMatmulAvailable() { return CpuRunsAvx2(); }

void FmaChainMatmul(StridedMatrix a, StridedMatrix b, int64_t rows, int64_t inner, int64_t cols,
                    float* c) {
  // Up to 64 columns of b at a time, copied to rows of 8-column groups
  // (zeros past the last column).
  constexpr int64_t kBlock = 64;
  std::vector<float> heap;
  float stack[32 * kBlock];
  float* packed = stack;
  if (inner > 32) {
    heap.resize(inner * kBlock);
    packed = heap.data();
  }
  for (int64_t j0 = 0; j0 < cols; j0 += kBlock) {
    const int64_t width = std::min(kBlock, cols - j0);
    const int64_t padded = (width + 7) / 8 * 8;
    for (int64_t p = 0; p < inner; ++p) {
      const float* b_row = b.data + p * b.row_stride + j0 * b.col_stride;
      float* packed_row = packed + p * padded;
      if (b.col_stride == 1) {
        std::copy(b_row, b_row + width, packed_row);
      } else {
        for (int64_t j = 0; j < width; ++j) packed_row[j] = b_row[j * b.col_stride];
      }
      for (int64_t j = width; j < padded; ++j) packed_row[j] = 0.0f;
    }
    // Four rows at a time (four independent chains hide the latency of
    // each fused multiply-add), then one at a time.
    auto store = [&](int64_t i, int64_t j, __m256 sum) {
      float* c_row = c + i * cols + j0;
      if (j + 8 <= width) {
        _mm256_storeu_ps(c_row + j, sum);
      } else {
        alignas(32) float lanes[8];
        _mm256_store_ps(lanes, sum);
        std::copy(lanes, lanes + (width - j), c_row + j);
      }
    };
    int64_t i = 0;
    for (; i + 4 <= rows; i += 4) {
      const float* a0 = a.data + i * a.row_stride;
      const float* a1 = a0 + a.row_stride;
      const float* a2 = a1 + a.row_stride;
      const float* a3 = a2 + a.row_stride;
      for (int64_t j = 0; j < padded; j += 8) {
        __m256 sum0 = _mm256_setzero_ps(), sum1 = sum0, sum2 = sum0, sum3 = sum0;
        for (int64_t p = 0; p < inner; ++p) {
          const __m256 b_values = _mm256_loadu_ps(packed + p * padded + j);
          const int64_t at = p * a.col_stride;
          sum0 = _mm256_fmadd_ps(_mm256_set1_ps(a0[at]), b_values, sum0);
          sum1 = _mm256_fmadd_ps(_mm256_set1_ps(a1[at]), b_values, sum1);
          sum2 = _mm256_fmadd_ps(_mm256_set1_ps(a2[at]), b_values, sum2);
          sum3 = _mm256_fmadd_ps(_mm256_set1_ps(a3[at]), b_values, sum3);
        }
        store(i, j, sum0);
        store(i + 1, j, sum1);
        store(i + 2, j, sum2);
        store(i + 3, j, sum3);
      }
    }
    for (; i < rows; ++i) {
      const float* a_row = a.data + i * a.row_stride;
      int64_t j = 0;
      // Four vectors of columns at a time (four independent chains), then one.
      for (; j + 32 <= padded; j += 32) {
        __m256 sum0 = _mm256_setzero_ps(), sum1 = sum0, sum2 = sum0, sum3 = sum0;
        for (int64_t p = 0; p < inner; ++p) {
          const float* b_values = packed + p * padded + j;
          const __m256 a_value = _mm256_set1_ps(a_row[p * a.col_stride]);
          sum0 = _mm256_fmadd_ps(a_value, _mm256_loadu_ps(b_values), sum0);
          sum1 = _mm256_fmadd_ps(a_value, _mm256_loadu_ps(b_values + 8), sum1);
          sum2 = _mm256_fmadd_ps(a_value, _mm256_loadu_ps(b_values + 16), sum2);
          sum3 = _mm256_fmadd_ps(a_value, _mm256_loadu_ps(b_values + 24), sum3);
        }
        store(i, j, sum0);
        store(i, j + 8, sum1);
        store(i, j + 16, sum2);
        store(i, j + 24, sum3);
      }
      for (; j < padded; j += 8) {
        __m256 sum = _mm256_setzero_ps();
        for (int64_t p = 0; p < inner; ++p) {
          sum = _mm256_fmadd_ps(_mm256_set1_ps(a_row[p * a.col_stride]),
                                _mm256_loadu_ps(packed + p * padded + j), sum);
        }
        store(i, j, sum);
      }
    }
  }
}

}  // namespace ops
}  // namespace static_runtime
