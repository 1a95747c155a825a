#include "ops/scale_shift.h"

#include <immintrin.h>

#include <cmath>

namespace static_runtime {
namespace ops {
namespace {

// relu as ATen's clamp_min(x, 0) gives it: NaN stays NaN, -0 stays -0.
inline float Relu(float v) { return v < 0.f ? 0.f : v; }

// y[i] = fma(x[i], alpha, beta) for i < n.
void Row(const float* x, float* y, float alpha, float beta, int64_t n, bool relu) {
  const __m256 a = _mm256_set1_ps(alpha), b = _mm256_set1_ps(beta), zero = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), a, b);
    // Keeps v where v >= 0 or v is NaN (the comparison is false for NaN).
    if (relu) v = _mm256_blendv_ps(v, zero, _mm256_cmp_ps(v, zero, _CMP_LT_OQ));
    _mm256_storeu_ps(y + i, v);
  }
  for (; i < n; ++i) {
    const float v = std::fma(x[i], alpha, beta);
    y[i] = relu ? Relu(v) : v;
  }
}

}  // namespace

bool ScaleShiftAvailable() {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

void ScaleShiftChannelsFirst(const float* x, float* y, const float* alpha, const float* beta,
                             int64_t begin, int64_t end, int64_t channels, int64_t inner,
                             bool relu) {
  for (int64_t row = begin; row < end; ++row) {
    const int64_t c = row % channels;
    Row(x + row * inner, y + row * inner, alpha[c], beta[c], inner, relu);
  }
}

void ScaleShiftChannelsLast(const float* x, float* y, const float* alpha, const float* beta,
                            int64_t begin, int64_t end, int64_t channels, bool relu) {
  const __m256 zero = _mm256_setzero_ps();
  for (int64_t p = begin; p < end; ++p) {
    const float* in = x + p * channels;
    float* out = y + p * channels;
    int64_t c = 0;
    for (; c + 8 <= channels; c += 8) {
      __m256 v = _mm256_fmadd_ps(_mm256_loadu_ps(in + c), _mm256_loadu_ps(alpha + c),
                                 _mm256_loadu_ps(beta + c));
      if (relu) v = _mm256_blendv_ps(v, zero, _mm256_cmp_ps(v, zero, _CMP_LT_OQ));
      _mm256_storeu_ps(out + c, v);
    }
    for (; c < channels; ++c) {
      const float v = std::fma(in[c], alpha[c], beta[c]);
      out[c] = relu ? Relu(v) : v;
    }
  }
}

}  // namespace ops
}  // namespace static_runtime
