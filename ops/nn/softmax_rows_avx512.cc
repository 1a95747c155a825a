#include "ops/nn/softmax_rows_avx512.h"

#include <immintrin.h>
#include <sleef.h>

#include <cstring>
#include <limits>

namespace static_runtime {
namespace ops {
namespace {

// The lanes below `count` (at most 16).
__mmask16 FirstLanes(int64_t count) { return static_cast<__mmask16>((1u << count) - 1); }

// vec::reduce_all(vec::maximum): the maximum, or the all-ones NaN that
// ATen's maximum gives when any value is NaN. (The sign of a zero maximum
// cannot change a softmax: x - 0 and x + 0 are x, and exp(-0) = exp(+0).)
float RowMaximum(const float* x, int64_t n) {
  const __m512 lowest = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  __m512 max = lowest;
  __mmask16 nan = 0;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 v = _mm512_loadu_ps(x + i);
    max = _mm512_max_ps(max, v);
    nan |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  }
  if (i < n) {
    const __m512 v = _mm512_mask_loadu_ps(lowest, FirstLanes(n - i), x + i);
    max = _mm512_max_ps(max, v);
    nan |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  }
  if (nan != 0) {
    const uint32_t all_ones = 0xffffffffu;
    float result;
    std::memcpy(&result, &all_ones, sizeof(result));
    return result;
  }
  return _mm512_reduce_max_ps(max);
}

// AVX2's vec_reduce_all(+) tree over an 8-lane accumulator.
float FoldAvx2Lanes(__m256 v) {
  v = _mm256_add_ps(v, _mm256_permute2f128_ps(v, v, 0x1));
  v = _mm256_add_ps(v, _mm256_shuffle_ps(v, v, 0x4E));
  v = _mm256_add_ps(v, _mm256_shuffle_ps(v, v, 0xB1));
  return _mm256_cvtss_f32(v);
}

// The 8-lane accumulator of vec::reduce_all(+): `chunk` (8 exps) added to
// it, or starting it.
struct Avx2Sum {
  __m256 acc = _mm256_setzero_ps();
  bool started = false;
  void AddChunk(__m256 chunk) {
    acc = started ? _mm256_add_ps(acc, chunk) : chunk;
    started = true;
  }
  // The partial vector's `count` lanes (1 to 7) added; the others kept.
  void AddTail(__m256 chunk, int64_t count) {
    const __m256 sum = _mm256_add_ps(acc, chunk);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256 take =
        _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(count)), lane));
    acc = _mm256_blendv_ps(acc, sum, take);
  }
};

void SoftmaxRow(const float* x, float* out, int64_t n) {
  const __m512 max = _mm512_set1_ps(RowMaximum(x, n));
  float sum = 0;
  if (n < 8) {
    // Under one vector: one partial vector, summed left to right.
    const __m512 e = Sleef_expf16_u10(_mm512_sub_ps(_mm512_maskz_loadu_ps(FirstLanes(n), x), max));
    _mm512_mask_storeu_ps(out, FirstLanes(n), e);
    sum = out[0];
    for (int64_t i = 1; i < n; ++i) sum += out[i];
  } else {
    Avx2Sum acc;
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
      const __m512 e = Sleef_expf16_u10(_mm512_sub_ps(_mm512_loadu_ps(x + i), max));
      _mm512_storeu_ps(out + i, e);
      acc.AddChunk(_mm512_castps512_ps256(e));
      acc.AddChunk(_mm512_extractf32x8_ps(e, 1));
    }
    if (i < n) {
      const int64_t rest = n - i;  // 1 to 15
      const __m512 e =
          Sleef_expf16_u10(_mm512_sub_ps(_mm512_maskz_loadu_ps(FirstLanes(rest), x + i), max));
      _mm512_mask_storeu_ps(out + i, FirstLanes(rest), e);
      if (rest >= 8) {
        acc.AddChunk(_mm512_castps512_ps256(e));
        if (rest > 8) acc.AddTail(_mm512_extractf32x8_ps(e, 1), rest - 8);
      } else {
        acc.AddTail(_mm512_castps512_ps256(e), rest);
      }
    }
    sum = FoldAvx2Lanes(acc.acc);
  }
  const __m512 scale = _mm512_set1_ps(1 / sum);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    _mm512_storeu_ps(out + i, _mm512_mul_ps(_mm512_loadu_ps(out + i), scale));
  }
  if (i < n) {
    const __mmask16 lanes = FirstLanes(n - i);
    _mm512_mask_storeu_ps(out + i, lanes,
                          _mm512_mul_ps(_mm512_maskz_loadu_ps(lanes, out + i), scale));
  }
}

}  // namespace

void SoftmaxRowsAvx512InAvx2Order(const float* in, float* out, int64_t first, int64_t last,
                                  int64_t n) {
  for (int64_t row = first; row < last; ++row) SoftmaxRow(in + row * n, out + row * n, n);
}

}  // namespace ops
}  // namespace static_runtime
