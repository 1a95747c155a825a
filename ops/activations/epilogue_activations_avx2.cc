// The epilogue activations on AVX2 and FMA (eight floats a vector).
#include <immintrin.h>

#include "ops/activations/epilogue_activations_impl.h"

namespace static_runtime {
namespace ops {
namespace {

struct Avx2 {
  using V = __m256;
  static constexpr int64_t kLanes = 8;
  static V Splat(float value) { return _mm256_set1_ps(value); }
  static V Load(const float* p) { return _mm256_loadu_ps(p); }
  static void Store(float* p, V v) { _mm256_storeu_ps(p, v); }
  static V Add(V a, V b) { return _mm256_add_ps(a, b); }
  static V Sub(V a, V b) { return _mm256_sub_ps(a, b); }
  static V Mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V Fmadd(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }    // a b + c
  static V Fnmadd(V a, V b, V c) { return _mm256_fnmadd_ps(a, b, c); }  // c - a b
  // The second operand where either is NaN (as minps and maxps give it).
  static V Min(V a, V b) { return _mm256_min_ps(a, b); }
  static V Max(V a, V b) { return _mm256_max_ps(a, b); }
  static V Rcp(V a) { return _mm256_rcp_ps(a); }  // within 1.5 * 2^-12
  static V Abs(V a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }
  // 2^n from `shifted` = n + round (n an integer in the float's mantissa).
  static V PowerOfTwo(V shifted, float round) {
    const __m256i n =
        _mm256_sub_epi32(_mm256_castps_si256(shifted), _mm256_castps_si256(Splat(round)));
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n, _mm256_set1_epi32(127)), 23));
  }
  // 0 where z > limit (not NaN), else v.
  static V ZeroWhereAbove(V z, float limit, V v) {
    return _mm256_andnot_ps(_mm256_cmp_ps(z, Splat(limit), _CMP_GT_OQ), v);
  }
  // if_negative where x < 0 (not NaN), else otherwise.
  static V WhereNegative(V x, V if_negative, V otherwise) {
    return _mm256_blendv_ps(otherwise, if_negative,
                            _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ));
  }
};

}  // namespace

EpilogueActivationLoops EpilogueActivationsAvx2() {
  return epilogue::VectorActivations<Avx2>::Loops("avx2");
}

}  // namespace ops
}  // namespace static_runtime
