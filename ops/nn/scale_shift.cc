#include "ops/nn/scale_shift.h"

#include <immintrin.h>

#include <cmath>

#include "ops/core/cpu_isa.h"

namespace static_runtime {
namespace ops {
namespace {

// fma(x, a, b), then with kRelu ATen's relu: _mm256_max_ps returns its
// second operand where either is NaN or both are zeros, as ATen's
// clamp_min(x, 0) does (vec::clamp_min(a, min) is max_ps(min, a)).
template <bool kRelu>
__m256 Affine(__m256 x, __m256 a, __m256 b) {
  const __m256 y = _mm256_fmadd_ps(x, a, b);
  return kRelu ? _mm256_max_ps(_mm256_setzero_ps(), y) : y;
}

// The same on one value: ATen's scalar clamp_min is std::max(y, 0.f),
// which keeps y where y < 0 is false (NaN, -0).
template <bool kRelu>
float Affine(float x, float a, float b) {
  const float y = std::fma(x, a, b);
  return kRelu && y < 0.f ? 0.f : y;
}

// y[i] = Affine(x[i], alpha, beta) for i < n.
template <bool kRelu>
void Row(const float* x, float* y, float alpha, float beta, int64_t n) {
  const __m256 a = _mm256_set1_ps(alpha), b = _mm256_set1_ps(beta);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm256_storeu_ps(y + i, Affine<kRelu>(_mm256_loadu_ps(x + i), a, b));
  }
  for (; i < n; ++i) y[i] = Affine<kRelu>(x[i], alpha, beta);
}

template <bool kRelu>
void ChannelsFirst(const float* x, float* y, const float* alpha, const float* beta, int64_t begin,
                   int64_t end, int64_t channels, int64_t inner) {
  for (int64_t row = begin; row < end; ++row) {
    const int64_t c = row % channels;
    Row<kRelu>(x + row * inner, y + row * inner, alpha[c], beta[c], inner);
  }
}

template <bool kRelu>
void ChannelsLast(const float* x, float* y, const float* alpha, const float* beta, int64_t begin,
                  int64_t end, int64_t channels) {
  for (int64_t p = begin; p < end; ++p) {
    const float* in = x + p * channels;
    float* out = y + p * channels;
    int64_t c = 0;
    for (; c + 8 <= channels; c += 8) {
      _mm256_storeu_ps(out + c, Affine<kRelu>(_mm256_loadu_ps(in + c), _mm256_loadu_ps(alpha + c),
                                              _mm256_loadu_ps(beta + c)));
    }
    for (; c < channels; ++c) out[c] = Affine<kRelu>(in[c], alpha[c], beta[c]);
  }
}

}  // namespace

bool ScaleShiftAvailable() { return CpuRunsAvx2(); }

void ScaleShiftChannelsFirst(const float* x, float* y, const float* alpha, const float* beta,
                             int64_t begin, int64_t end, int64_t channels, int64_t inner,
                             bool relu) {
  (relu ? ChannelsFirst<true> : ChannelsFirst<false>)(x, y, alpha, beta, begin, end, channels,
                                                      inner);
}

void ScaleShiftChannelsLast(const float* x, float* y, const float* alpha, const float* beta,
                            int64_t begin, int64_t end, int64_t channels, bool relu) {
  (relu ? ChannelsLast<true> : ChannelsLast<false>)(x, y, alpha, beta, begin, end, channels);
}

}  // namespace ops
}  // namespace static_runtime
