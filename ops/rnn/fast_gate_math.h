// Our own vector tanh and sigmoid for the recurrent steps of the fast-gates
// kernels (FastRnnSteps in ops/rnn/lstm_gates.h), included by a translation
// unit compiled with one ISA's flags and ATen's CPU_CAPABILITY macros (as
// lstm_gates_impl.h), so Vec is that ISA's at::vec::Vectorized<float>.
//
// Contract (kFastTanhError, kFastSigmoidError in lstm_gates.h; checked by
// //ops/rnn:fast_gate_math_test over a sweep of every float magnitude, on each ISA the CPU runs):
// for every float x,
//   |FastTanh(x) - tanh(x)| <= kFastTanhError eps32 |tanh(x)|,
//   |FastSigmoid(x) - sigmoid(x)| <= kFastSigmoidError eps32 sigmoid(x) + 2^-126,
// eps32 = 2^-23; NaN in gives NaN out, tanh keeps the sign of zero.
// ATen's (Sleef's) functions are within 1 ulp, and so within the same bounds.
//
// How: exp(z) = 2^n exp(r), z = n ln2 + r, |r| <= ln2 / 2, exp(r) by its
// Taylor polynomial of degree 7 (truncation under 1e-8 relative), times 2^n.
// tanh(|x|) = 1 - 2 / (exp(2|x|) + 1) from |x| = 0.4 on (exp's argument
// capped at 20, where tanh rounds to 1), and below by its odd Taylor
// polynomial to x^15 (truncation under 1e-8 relative); the sign copied back.
// sigmoid(x) = 1 / (1 + exp(-x)), exp's argument clamped to [-87.3, 88]
// (beyond, sigmoid is 1 or within 2^-126 of 0). About 30 vector instructions
// each, no divide with AVX512 (see Reciprocal): several times faster than
// Sleef's exact tanh (two divides, ~130 instructions).
#ifndef STATIC_RUNTIME_OPS_RNN_FAST_GATE_MATH_H_
#define STATIC_RUNTIME_OPS_RNN_FAST_GATE_MATH_H_

#include <immintrin.h>

#include <cmath>

#include "ATen/cpu/vec/vec.h"
#include "ops/rnn/lstm_gates.h"

namespace static_runtime {
namespace ops {
namespace CPU_CAPABILITY {

using FastVec = at::vec::Vectorized<float>;

// p 2^n for whole n in [-126, 127] (a float vector of integers): AVX512's
// scalef, or 2^n built in the exponent bits.
inline FastVec TimesPow2(const FastVec& p, const FastVec& n) {
#if defined(CPU_CAPABILITY_AVX512)
  return _mm512_scalef_ps(p, n);
#elif defined(CPU_CAPABILITY_AVX2)
  const __m256i bits =
      _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return p * FastVec(_mm256_castsi256_ps(bits));
#else  // ATen's portable vectors (a translation unit without ISA flags)
  return p * n.map([](float e) { return std::ldexp(1.f, static_cast<int>(e)); });
#endif
}

// 1 / d for d in [1, 2^128). With AVX512 the CPU's 14-bit reciprocal
// estimate refined by one Newton step, r + r (1 - d r) (relative error under
// 2^-28 before its last rounding): several times the throughput of a divide,
// which a gate would otherwise wait on. AVX2's estimate has 12 bits, too few
// for one step, so there it divides.
inline FastVec Reciprocal(const FastVec& d) {
#if defined(CPU_CAPABILITY_AVX512)
  const FastVec r = _mm512_rcp14_ps(d);
  return at::vec::fmadd(r, at::vec::fmadd(FastVec(0.f) - d, r, FastVec(1.f)), r);
#else
  return FastVec(1.f) / d;
#endif
}

// exp(z) for z in [-87.3, 88].
inline FastVec FastExp(const FastVec& z) {
  using at::vec::fmadd;
  const FastVec n = (z * FastVec(1.44269504088896341f)).round();
  // ln2 in two parts: n * the first is exact.
  FastVec r = fmadd(n, FastVec(-0.693145751953125f), z);
  r = fmadd(n, FastVec(-1.428606765330187e-06f), r);
  FastVec p(1.f / 5040);
  p = fmadd(p, r, FastVec(1.f / 720));
  p = fmadd(p, r, FastVec(1.f / 120));
  p = fmadd(p, r, FastVec(1.f / 24));
  p = fmadd(p, r, FastVec(1.f / 6));
  p = fmadd(p, r, FastVec(0.5f));
  p = fmadd(p, r, FastVec(1.f));
  p = fmadd(p, r, FastVec(1.f));
  return TimesPow2(p, n);
}

inline FastVec FastTanh(const FastVec& x) {
  using at::vec::fmadd;
  const FastVec sign_mask(-0.f);
  const FastVec y = x.abs();
  const FastVec y2 = y * y;
  FastVec q(-929569.f / 638512875);
  q = fmadd(q, y2, FastVec(21844.f / 6081075));
  q = fmadd(q, y2, FastVec(-1382.f / 155925));
  q = fmadd(q, y2, FastVec(62.f / 2835));
  q = fmadd(q, y2, FastVec(-17.f / 315));
  q = fmadd(q, y2, FastVec(2.f / 15));
  q = fmadd(q, y2, FastVec(-1.f / 3));
  const FastVec small = fmadd(y * y2, q, y);
  const FastVec e = FastExp(at::vec::minimum(y + y, FastVec(20.f)));
  const FastVec large = FastVec(1.f) - FastVec(2.f) * Reciprocal(e + FastVec(1.f));
  const FastVec magnitude = FastVec::blendv(large, small, y < FastVec(0.4f));
  return magnitude | (x & sign_mask);  // a NaN x made every step NaN
}

inline FastVec FastSigmoid(const FastVec& x) {
  const FastVec z = at::vec::clamp(FastVec(0.f) - x, FastVec(-87.3f), FastVec(88.f));
  return Reciprocal(FastVec(1.f) + FastExp(z));  // clamp keeps a NaN
}

}  // namespace CPU_CAPABILITY
}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_RNN_FAST_GATE_MATH_H_
