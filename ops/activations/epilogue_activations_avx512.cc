// The epilogue activations on AVX-512 (sixteen floats a vector).
#include <immintrin.h>

#include "ops/activations/epilogue_activations_impl.h"

namespace static_runtime {
namespace ops {
namespace {

struct Avx512 {
  using V = __m512;
  static constexpr int64_t kLanes = 16;
  static V Splat(float value) { return _mm512_set1_ps(value); }
  static V Load(const float* p) { return _mm512_loadu_ps(p); }
  static void Store(float* p, V v) { _mm512_storeu_ps(p, v); }
  static V Add(V a, V b) { return _mm512_add_ps(a, b); }
  static V Sub(V a, V b) { return _mm512_sub_ps(a, b); }
  static V Mul(V a, V b) { return _mm512_mul_ps(a, b); }
  static V Fmadd(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }    // a b + c
  static V Fnmadd(V a, V b, V c) { return _mm512_fnmadd_ps(a, b, c); }  // c - a b
  // The second operand where either is NaN (as minps and maxps give it).
  static V Min(V a, V b) { return _mm512_min_ps(a, b); }
  static V Max(V a, V b) { return _mm512_max_ps(a, b); }
  static V Rcp(V a) { return _mm512_rcp14_ps(a); }  // within 2^-14
  static V Abs(V a) { return _mm512_abs_ps(a); }
  // 2^n from `shifted` = n + round (n an integer in the float's mantissa).
  static V PowerOfTwo(V shifted, float round) {
    const __m512i n =
        _mm512_sub_epi32(_mm512_castps_si512(shifted), _mm512_castps_si512(Splat(round)));
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(n, _mm512_set1_epi32(127)), 23));
  }
  // 0 where z > limit (not NaN), else v.
  static V ZeroWhereAbove(V z, float limit, V v) {
    return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(z, Splat(limit), _CMP_NGT_UQ), v);
  }
  // if_negative where x < 0 (not NaN), else otherwise.
  static V WhereNegative(V x, V if_negative, V otherwise) {
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ), otherwise,
                                if_negative);
  }
};

}  // namespace

EpilogueActivationLoops EpilogueActivationsAvx512() {
  return epilogue::VectorActivations<Avx512>::Loops("avx512");
}

}  // namespace ops
}  // namespace static_runtime
