// The vector form of the epilogue activations (epilogue_activations.h),
// written once over an ISA's traits and included by one translation unit per
// ISA (epilogue_activations_avx2.cc, epilogue_activations_avx512.cc, compiled
// with that ISA's flags). A traits struct gives the vector type V, its
// lanes, and the few operations below by name.
//
// The arithmetic: e^z as 2^n e^r with Cephes' polynomial for e^r - 1 - r on
// |r| <= ln2 / 2 (about 1 ulp); erfc by Abramowitz and Stegun 7.1.26
// (absolute error <= 1.5e-7, the approximation oneDNN's gelu, and so ATen's,
// uses); divisions as a reciprocal estimate refined by one Newton step
// (within 2 ulp). kPack vectors go through each step side by side (one
// vector's chain of dependent steps alone leaves the core mostly idle); the
// last partial pack runs on a zero-padded copy.
#ifndef STATIC_RUNTIME_OPS_ACTIVATIONS_EPILOGUE_ACTIVATIONS_IMPL_H_
#define STATIC_RUNTIME_OPS_ACTIVATIONS_EPILOGUE_ACTIVATIONS_IMPL_H_

#include <cstdint>
#include <cstring>

#include "ops/activations/epilogue_activations.h"

namespace static_runtime {
namespace ops {
namespace epilogue {

constexpr float kLog2e = 1.44269504088896341f;
constexpr float kRound = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
constexpr float kLn2High = 0.693359375f, kLn2Low = -2.12194440e-4f;
constexpr float kExpPoly[] = {1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f,
                              4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f};
// e^z is taken for z in [kExpMin, kExpMax]: 2^n stays a normal float.
constexpr float kExpMin = -87.0f, kExpMax = 88.0f;
// erfc(z) = t (a1 + t (a2 + ... + t a5)) e^(-z^2), t = 1 / (1 + p z), z >= 0.
constexpr float kErfcP = 0.3275911f;
constexpr float kErfcPoly[] = {1.061405429f, -1.453152027f, 1.421413741f, -0.284496736f,
                               0.254829592f};
constexpr float kSqrtHalf = 0.70710678118654752f;
constexpr float kErfcArgMax = 1e30f;

constexpr int kPack = 4;
#define SR_EACH _Pragma("GCC unroll 4") for (int k = 0; k < kPack; ++k)

template <typename Isa>
struct VectorActivations {
  using V = typename Isa::V;
  using Pack = V[kPack];

  // d = 1 / d.
  static inline void Reciprocal(Pack& d) {
    Pack estimate;
    SR_EACH estimate[k] = Isa::Rcp(d[k]);
    // estimate (2 - d estimate)
    SR_EACH d[k] = Isa::Mul(estimate[k], Isa::Fnmadd(d[k], estimate[k], Isa::Splat(2.0f)));
  }

  // z = e^z for z in [kExpMin, kExpMax] (NaN in, garbage out: callers
  // multiply by the NaN).
  static inline void ExpInRange(Pack& z) {
    Pack shifted, r, p;
    SR_EACH shifted[k] = Isa::Fmadd(z[k], Isa::Splat(kLog2e), Isa::Splat(kRound));
    SR_EACH {
      const V n = Isa::Sub(shifted[k], Isa::Splat(kRound));
      r[k] = Isa::Fnmadd(n, Isa::Splat(kLn2Low), Isa::Fnmadd(n, Isa::Splat(kLn2High), z[k]));
    }
    SR_EACH p[k] = Isa::Splat(kExpPoly[0]);
    for (int i = 1; i < 6; ++i) {
      SR_EACH p[k] = Isa::Fmadd(p[k], r[k], Isa::Splat(kExpPoly[i]));
    }
    SR_EACH {
      const V e_r = Isa::Fmadd(Isa::Mul(p[k], r[k]), r[k], Isa::Add(r[k], Isa::Splat(1.0f)));
      z[k] = Isa::Mul(e_r, Isa::PowerOfTwo(shifted[k], kRound));
    }
  }

  static inline void Silu(Pack& x) {
    Pack e, z;
    SR_EACH {
      z[k] = Isa::Sub(Isa::Splat(0.0f), x[k]);
      // max(z, min): a NaN z gives min; x, the NaN, then makes the result NaN.
      e[k] = Isa::Min(Isa::Max(z[k], Isa::Splat(kExpMin)), Isa::Splat(kExpMax));
    }
    ExpInRange(e);
    SR_EACH e[k] = Isa::Add(Isa::Splat(1.0f), e[k]);
    Reciprocal(e);
    // Past kExpMax e^z overflows: x / inf, -0 (NaN for -inf).
    SR_EACH e[k] = Isa::ZeroWhereAbove(z[k], kExpMax, e[k]);
    SR_EACH x[k] = Isa::Mul(x[k], e[k]);
  }

  static inline void Gelu(Pack& x) {
    Pack z, t, poly, e;
    // |x| / sqrt(2), at most kErfcArgMax: past it erfc is 0 in floats, and
    // the reciprocal's Newton step of 1 + p z for an infinite z would make a
    // NaN (0 (2 - inf 0)) of gelu(inf) = inf. A NaN x gives kErfcArgMax (the
    // second operand); x, the NaN, then makes the result NaN.
    SR_EACH z[k] =
        Isa::Min(Isa::Mul(Isa::Abs(x[k]), Isa::Splat(kSqrtHalf)), Isa::Splat(kErfcArgMax));
    SR_EACH t[k] = Isa::Fmadd(z[k], Isa::Splat(kErfcP), Isa::Splat(1.0f));
    Reciprocal(t);
    SR_EACH poly[k] = Isa::Splat(kErfcPoly[0]);
    for (int i = 1; i < 5; ++i) {
      SR_EACH poly[k] = Isa::Fmadd(poly[k], t[k], Isa::Splat(kErfcPoly[i]));
    }
    SR_EACH e[k] = Isa::Sub(Isa::Splat(0.0f), Isa::Min(Isa::Mul(z[k], z[k]), Isa::Splat(-kExpMin)));
    ExpInRange(e);
    SR_EACH {
      const V erfc = Isa::Mul(Isa::Mul(poly[k], t[k]), e[k]);
      const V one_plus_erf = Isa::WhereNegative(x[k], erfc, Isa::Sub(Isa::Splat(2.0f), erfc));
      x[k] = Isa::Mul(Isa::Mul(Isa::Splat(0.5f), x[k]), one_plus_erf);
    }
  }

  // `activate` on every element of data[0, count), in place.
  template <void (*kActivate)(Pack&)>
  static void Loop(float* data, int64_t count) {
    constexpr int64_t kLanes = Isa::kLanes;
    constexpr int64_t kStep = kLanes * kPack;
    int64_t i = 0;
    for (; i + kStep <= count; i += kStep) {
      Pack x;
      SR_EACH x[k] = Isa::Load(data + i + kLanes * k);
      kActivate(x);
      SR_EACH Isa::Store(data + i + kLanes * k, x[k]);
    }
    if (i == count) return;
    float padded[kStep] = {};
    std::memcpy(padded, data + i, (count - i) * sizeof(float));
    Pack x;
    SR_EACH x[k] = Isa::Load(padded + kLanes * k);
    kActivate(x);
    SR_EACH Isa::Store(padded + kLanes * k, x[k]);
    std::memcpy(data + i, padded, (count - i) * sizeof(float));
  }

  static EpilogueActivationLoops Loops(const char* name) { return {Loop<Silu>, Loop<Gelu>, name}; }
};

#undef SR_EACH

}  // namespace epilogue
}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_ACTIVATIONS_EPILOGUE_ACTIVATIONS_IMPL_H_
