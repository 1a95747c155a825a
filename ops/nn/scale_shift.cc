#include "ops/nn/scale_shift.h"

#include <immintrin.h>

#include <cmath>

namespace static_runtime {
namespace ops {
namespace {

// y[i] = fma(x[i], alpha, beta) for i < n.
void Row(const float* x, float* y, float alpha, float beta, int64_t n) {
  const __m256 a = _mm256_set1_ps(alpha), b = _mm256_set1_ps(beta);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm256_storeu_ps(y + i, _mm256_fmadd_ps(_mm256_loadu_ps(x + i), a, b));
  }
  for (; i < n; ++i) y[i] = std::fma(x[i], alpha, beta);
}

}  // namespace

bool ScaleShiftAvailable() {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

void ScaleShiftChannelsFirst(const float* x, float* y, const float* alpha, const float* beta,
                             int64_t begin, int64_t end, int64_t channels, int64_t inner) {
  for (int64_t row = begin; row < end; ++row) {
    const int64_t c = row % channels;
    Row(x + row * inner, y + row * inner, alpha[c], beta[c], inner);
  }
}

void ScaleShiftChannelsLast(const float* x, float* y, const float* alpha, const float* beta,
                            int64_t begin, int64_t end, int64_t channels) {
  for (int64_t p = begin; p < end; ++p) {
    const float* in = x + p * channels;
    float* out = y + p * channels;
    int64_t c = 0;
    for (; c + 8 <= channels; c += 8) {
      _mm256_storeu_ps(out + c, _mm256_fmadd_ps(_mm256_loadu_ps(in + c), _mm256_loadu_ps(alpha + c),
                                                _mm256_loadu_ps(beta + c)));
    }
    for (; c < channels; ++c) out[c] = std::fma(in[c], alpha[c], beta[c]);
  }
}

}  // namespace ops
}  // namespace static_runtime
