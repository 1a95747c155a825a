#include "ops/activations/epilogue_activations.h"

#include <immintrin.h>

#include <cstdint>
#include <cstring>
#include <limits>

namespace static_runtime {
namespace ops {
namespace {

constexpr float kLog2e = 1.44269504088896341f;
constexpr float kRound = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
constexpr float kLn2High = 0.693359375f, kLn2Low = -2.12194440e-4f;
// Cephes' polynomial for e^r - 1 - r on |r| <= ln2 / 2 (about 1 ulp).
constexpr float kExpPoly[] = {1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f,
                              4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f};
// e^z is taken for z in [kExpMin, kExpMax]: 2^n stays a normal float.
constexpr float kExpMin = -87.0f, kExpMax = 88.0f;
// Abramowitz and Stegun 7.1.26: erfc(z) = t (a1 + t (a2 + ... + t a5))
// e^(-z^2), t = 1 / (1 + p z), z >= 0, absolute error <= 1.5e-7 (the
// approximation oneDNN's gelu, and so ATen's, uses).
constexpr float kErfcP = 0.3275911f;
constexpr float kErfcPoly[] = {1.061405429f, -1.453152027f, 1.421413741f, -0.284496736f,
                               0.254829592f};
constexpr float kSqrtHalf = 0.70710678118654752f;

// The scalar forms (baseline CPUs and the tails), the same arithmetic.
float ExpInRange(float z) {
  const float shifted = z * kLog2e + kRound;
  const float n = shifted - kRound;
  // (Unsigned: a NaN's bits make any exponent; the caller discards it.)
  uint32_t shifted_bits, round_bits;
  std::memcpy(&shifted_bits, &shifted, sizeof shifted);
  std::memcpy(&round_bits, &kRound, sizeof kRound);
  const uint32_t scale_bits = (shifted_bits - round_bits + 127) << 23;
  float scale;
  std::memcpy(&scale, &scale_bits, sizeof scale);
  const float r = (z - n * kLn2High) - n * kLn2Low;
  float p = kExpPoly[0];
  for (int i = 1; i < 6; ++i) p = p * r + kExpPoly[i];
  return (p * r * r + r + 1.0f) * scale;
}

float Silu(float x) {
  const float z = -x;
  if (z > kExpMax) return x / std::numeric_limits<float>::infinity();  // -0, or NaN for -inf
  return x / (1.0f + ExpInRange(z < kExpMin ? kExpMin : z));
}

float Gelu(float x) {
  const float z = (x < 0.0f ? -x : x) * kSqrtHalf;
  const float t = 1.0f / (1.0f + kErfcP * z);
  float poly = kErfcPoly[0];
  for (int i = 1; i < 5; ++i) poly = poly * t + kErfcPoly[i];
  const float z2 = z * z;
  const float erfc = poly * t * ExpInRange(-(z2 > -kExpMin ? -kExpMin : z2));
  return 0.5f * x * (x < 0.0f ? erfc : 2.0f - erfc);
}

// AVX2 and FMA: the same steps on kPack vectors of eight floats at once,
// step by step across the vectors (independent chains side by side: one
// vector's chain of dependent steps alone leaves the core mostly idle), the
// divisions as a reciprocal estimate refined by one Newton step (within
// 2 ulp).
#define SR_AVX2_FMA __attribute__((target("avx2,fma")))
constexpr int kPack = 4;
using Pack = __m256[kPack];
#define SR_EACH _Pragma("GCC unroll 4") for (int k = 0; k < kPack; ++k)

SR_AVX2_FMA inline __m256 Splat(float value) { return _mm256_set1_ps(value); }

// d = 1 / d.
SR_AVX2_FMA inline void Reciprocal(Pack& d) {
  Pack estimate;
  SR_EACH estimate[k] = _mm256_rcp_ps(d[k]);
  // estimate (2 - d estimate)
  SR_EACH d[k] = _mm256_mul_ps(estimate[k], _mm256_fnmadd_ps(d[k], estimate[k], Splat(2.0f)));
}

// z = e^z for z in [kExpMin, kExpMax] (NaN in, garbage out: callers
// multiply by the NaN).
SR_AVX2_FMA inline void ExpInRange(Pack& z) {
  Pack shifted, r, p;
  SR_EACH shifted[k] = _mm256_fmadd_ps(z[k], Splat(kLog2e), Splat(kRound));
  SR_EACH {
    const __m256 n = _mm256_sub_ps(shifted[k], Splat(kRound));
    r[k] = _mm256_fnmadd_ps(n, Splat(kLn2Low), _mm256_fnmadd_ps(n, Splat(kLn2High), z[k]));
  }
  SR_EACH p[k] = Splat(kExpPoly[0]);
  for (int i = 1; i < 6; ++i) {
    SR_EACH p[k] = _mm256_fmadd_ps(p[k], r[k], Splat(kExpPoly[i]));
  }
  SR_EACH {
    const __m256i exponent =
        _mm256_sub_epi32(_mm256_castps_si256(shifted[k]), _mm256_castps_si256(Splat(kRound)));
    const __m256 scale = _mm256_castsi256_ps(
        _mm256_slli_epi32(_mm256_add_epi32(exponent, _mm256_set1_epi32(127)), 23));
    const __m256 e_r =
        _mm256_fmadd_ps(_mm256_mul_ps(p[k], r[k]), r[k], _mm256_add_ps(r[k], Splat(1.0f)));
    z[k] = _mm256_mul_ps(e_r, scale);
  }
}

SR_AVX2_FMA inline void Silu(Pack& x) {
  Pack e, overflow;
  SR_EACH {
    const __m256 z = _mm256_sub_ps(_mm256_setzero_ps(), x[k]);
    // max(z, min): a NaN z gives min; x, the NaN, then makes the result NaN.
    e[k] = _mm256_min_ps(_mm256_max_ps(z, Splat(kExpMin)), Splat(kExpMax));
    overflow[k] = _mm256_cmp_ps(z, Splat(kExpMax), _CMP_GT_OQ);
  }
  ExpInRange(e);
  SR_EACH e[k] = _mm256_add_ps(Splat(1.0f), e[k]);
  Reciprocal(e);
  // Past kExpMax e^z overflows: x / inf, -0 (NaN for -inf).
  SR_EACH e[k] = _mm256_andnot_ps(overflow[k], e[k]);
  SR_EACH x[k] = _mm256_mul_ps(x[k], e[k]);
}

SR_AVX2_FMA inline void Gelu(Pack& x) {
  Pack z, t, poly, e;
  SR_EACH z[k] = _mm256_mul_ps(_mm256_andnot_ps(Splat(-0.0f), x[k]), Splat(kSqrtHalf));
  SR_EACH t[k] = _mm256_fmadd_ps(z[k], Splat(kErfcP), Splat(1.0f));
  Reciprocal(t);
  SR_EACH poly[k] = Splat(kErfcPoly[0]);
  for (int i = 1; i < 5; ++i) {
    SR_EACH poly[k] = _mm256_fmadd_ps(poly[k], t[k], Splat(kErfcPoly[i]));
  }
  SR_EACH e[k] =
      _mm256_sub_ps(_mm256_setzero_ps(), _mm256_min_ps(_mm256_mul_ps(z[k], z[k]), Splat(-kExpMin)));
  ExpInRange(e);
  SR_EACH {
    const __m256 erfc = _mm256_mul_ps(_mm256_mul_ps(poly[k], t[k]), e[k]);
    const __m256 negative = _mm256_cmp_ps(x[k], _mm256_setzero_ps(), _CMP_LT_OQ);
    const __m256 one_plus_erf = _mm256_blendv_ps(_mm256_sub_ps(Splat(2.0f), erfc), erfc, negative);
    x[k] = _mm256_mul_ps(_mm256_mul_ps(Splat(0.5f), x[k]), one_plus_erf);
  }
}

template <float (*kScalar)(float), void (*kVector)(Pack&)>
SR_AVX2_FMA void Avx2Loop(float* data, int64_t count) {
  constexpr int64_t kStep = 8 * kPack;
  int64_t i = 0;
  for (; i + kStep <= count; i += kStep) {
    Pack x;
    SR_EACH x[k] = _mm256_loadu_ps(data + i + 8 * k);
    kVector(x);
    SR_EACH _mm256_storeu_ps(data + i + 8 * k, x[k]);
  }
  for (; i < count; ++i) data[i] = kScalar(data[i]);
}

bool HasAvx2AndFma() {
  static const bool kHas = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return kHas;
}

}  // namespace

void SiluInPlace(float* data, int64_t count) {
  if (HasAvx2AndFma()) return Avx2Loop<Silu, Silu>(data, count);
  for (int64_t i = 0; i < count; ++i) data[i] = Silu(data[i]);
}

void GeluInPlace(float* data, int64_t count) {
  if (HasAvx2AndFma()) return Avx2Loop<Gelu, Gelu>(data, count);
  for (int64_t i = 0; i < count; ++i) data[i] = Gelu(data[i]);
}

}  // namespace ops
}  // namespace static_runtime
