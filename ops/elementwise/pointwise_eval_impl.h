// The body of the pointwise evaluators (ops/elementwise/pointwise_program.h), included
// once per ISA by a translation unit compiled with that ISA's flags and
// ATen's CPU_CAPABILITY macros, so at::vec::Vectorized<float> is that ISA's.
#ifndef STATIC_RUNTIME_OPS_ELEMENTWISE_POINTWISE_EVAL_IMPL_H_
#define STATIC_RUNTIME_OPS_ELEMENTWISE_POINTWISE_EVAL_IMPL_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "ATen/cpu/vec/functional.h"
#include "ATen/cpu/vec/vec.h"
#include "ops/elementwise/pointwise_program.h"

namespace static_runtime {
namespace ops {

// Defined in pointwise_eval_avx2.cc and pointwise_eval_avx512.cc.
PointwiseRangeFn PointwiseRangeAvx2();
PointwiseRangeFn PointwiseRangeAvx512();

namespace CPU_CAPABILITY {

using Vec = at::vec::Vectorized<float>;

// Elements per tile: the registers of one tile stay in the L1 cache.
constexpr int64_t kTile = 256;
static_assert(kTile % (2 * Vec::size()) == 0, "tiles hold whole vector pairs");

// GELU's constants, as ATen's kernel rounds them to float.
constexpr float kGeluAlpha = static_cast<float>(M_SQRT1_2);
constexpr float kGeluBeta = static_cast<float>(M_SQRT2 * M_2_SQRTPI * 0.5);
constexpr float kGeluKappa = static_cast<float>(0.044715);

// Each op as ATen's CPU kernel writes its vector and scalar formulas, as a
// functor so that each op's loop is compiled on its own.
template <PointwiseOp kOp>
struct Formula;
#define SR_POINTWISE_FORMULA(op, vector, scalar)                                          \
  template <>                                                                             \
  struct Formula<PointwiseOp::op> {                                                       \
    static Vec Vector(Vec a, Vec b, Vec c, Vec lo, Vec hi) { return vector; }             \
    static float Scalar(float a, float b, float c, float lo, float hi) { return scalar; } \
  };
SR_POINTWISE_FORMULA(kAdd, a + b, a + b)
SR_POINTWISE_FORMULA(kSub, a - b, a - b)
SR_POINTWISE_FORMULA(kMul, a* b, a* b)
SR_POINTWISE_FORMULA(kDiv, a / b, a / b)
SR_POINTWISE_FORMULA(kGt, Vec::blendv(Vec(0.f), Vec(1.f), a > b), a > b ? 1.f : 0.f)
SR_POINTWISE_FORMULA(kLt, Vec::blendv(Vec(0.f), Vec(1.f), a < b), a < b ? 1.f : 0.f)
SR_POINTWISE_FORMULA(kGe, Vec::blendv(Vec(0.f), Vec(1.f), a >= b), a >= b ? 1.f : 0.f)
SR_POINTWISE_FORMULA(kLe, Vec::blendv(Vec(0.f), Vec(1.f), a <= b), a <= b ? 1.f : 0.f)
SR_POINTWISE_FORMULA(kEq, Vec::blendv(Vec(0.f), Vec(1.f), a == b), a == b ? 1.f : 0.f)
SR_POINTWISE_FORMULA(kNe, Vec::blendv(Vec(0.f), Vec(1.f), a != b), a != b ? 1.f : 0.f)
SR_POINTWISE_FORMULA(kToFloat, a, a)  // converted when read
SR_POINTWISE_FORMULA(kToBool, Vec::blendv(Vec(0.f), Vec(1.f), a != Vec(0.f)), a != 0.f ? 1.f : 0.f)
// x86's conversion (cvttss2si): truncated, or the lowest value where the
// type cannot hold the result (NaN included). The floats are exact: the
// truncation of a float with |a| < 2^31 or 2^63 fits the type.
constexpr float kInt32Limit = 0x1p31f, kInt64Limit = 0x1p63f;
SR_POINTWISE_FORMULA(kToInt32,
                     Vec::blendv(Vec(-kInt32Limit), a.trunc(), a.abs() < Vec(kInt32Limit)),
                     std::abs(a) < kInt32Limit ? std::trunc(a) : -kInt32Limit)
SR_POINTWISE_FORMULA(kToInt64,
                     Vec::blendv(Vec(-kInt64Limit), a.trunc(), a.abs() < Vec(kInt64Limit)),
                     std::abs(a) < kInt64Limit ? std::trunc(a) : -kInt64Limit)
SR_POINTWISE_FORMULA(kWhere, Vec::blendv(b, a, c != Vec(0.f)), c != 0.f ? a : b)
SR_POINTWISE_FORMULA(kMaskedFill, Vec::blendv(a, c, b != Vec(0.f)), b != 0.f ? c : a)
SR_POINTWISE_FORMULA(kNeg, a.neg(), -a)
SR_POINTWISE_FORMULA(kAbs, a.abs(), std::abs(a))
SR_POINTWISE_FORMULA(kRelu, at::vec::clamp_min(a, Vec(0.f)), std::max(a, 0.f))
SR_POINTWISE_FORMULA(kSigmoid, ((Vec(0.f) - a).exp() + Vec(1.f)).reciprocal(),
                     1.f / (1.f + std::exp(-a)))
SR_POINTWISE_FORMULA(kTanh, a.tanh(), std::tanh(a))
SR_POINTWISE_FORMULA(kExp, a.exp(), std::exp(a))
SR_POINTWISE_FORMULA(kLog, a.log(), std::log(a))
SR_POINTWISE_FORMULA(kLog1p, a.log1p(), std::log1p(a))
SR_POINTWISE_FORMULA(kSqrt, a.sqrt(), std::sqrt(a))
SR_POINTWISE_FORMULA(kRsqrt, a.rsqrt(), 1.f / std::sqrt(a))
SR_POINTWISE_FORMULA(kSilu, a / (Vec(1.f) + a.neg().exp()), a / (1.f + std::exp(-a)))
SR_POINTWISE_FORMULA(kGelu, a* Vec(0.5f) * (Vec(1.f) + (a * Vec(kGeluAlpha)).erf()),
                     a * 0.5f * (1.f + std::erf(a * kGeluAlpha)))
// (GCC contracts kappa * x^3 + x in ATen's build of this kernel, both forms.)
SR_POINTWISE_FORMULA(kGeluTanh,
                     Vec(0.5f) * a *
                         (Vec(1.f) +
                          (Vec(kGeluBeta) * at::vec::fmadd(Vec(kGeluKappa), a* a* a, a)).tanh()),
                     0.5f * a * (1.f + std::tanh(kGeluBeta * std::fma(kGeluKappa, a* a* a, a))))
SR_POINTWISE_FORMULA(kHardswish,
                     a* at::vec::minimum(at::vec::maximum(a + Vec(3.f), Vec(0.f)), Vec(6.f)) /
                         Vec(6.f),
                     a* std::min(std::max(a + 3.f, 0.f), 6.f) / 6.f)
SR_POINTWISE_FORMULA(kHardsigmoid,
                     at::vec::minimum(at::vec::maximum(a + Vec(3.f), Vec(0.f)), Vec(6.f)) /
                         Vec(6.f),
                     std::min(std::max(a + 3.f, 0.f), 6.f) / 6.f)
SR_POINTWISE_FORMULA(kLeakyRelu, a* Vec::blendv(lo, Vec(1.f), a > Vec(0.f)), a > 0.f ? a : a * lo)
SR_POINTWISE_FORMULA(kClamp, at::vec::clamp(a, lo, hi), std::min(std::max(a, lo), hi))
SR_POINTWISE_FORMULA(kClampMin, at::vec::clamp_min(a, lo), std::max(a, lo))
SR_POINTWISE_FORMULA(kClampMax, at::vec::clamp_max(a, hi), std::min(a, hi))
#undef SR_POINTWISE_FORMULA

// One op over elements [0, n) of a tile: the vector formula on the first
// `vector` (ATen's vector pairs), then ATen's tail rule. Operands are tile
// arrays (b unused by unary ops); a partial vector at the end of a vector
// stretch is fine, the formulas work lane by lane.
template <PointwiseOp kOp>
__attribute__((always_inline)) inline void Run(const PointwiseInstruction& in, const float* a,
                                               const float* b, const float* c, float* out,
                                               int64_t vector, int64_t n) {
  using F = Formula<kOp>;
  const Vec lo(in.lo), hi(in.hi);
  auto vector_range = [&](int64_t i, int64_t j) __attribute__((always_inline)) {
    for (; i + Vec::size() <= j; i += Vec::size()) {
      F::Vector(Vec::loadu(a + i), Vec::loadu(b + i), Vec::loadu(c + i), lo, hi).store(out + i);
    }
    if (i < j) {
      const int64_t count = j - i;
      F::Vector(Vec::loadu(a + i, count), Vec::loadu(b + i, count), Vec::loadu(c + i, count), lo,
                hi)
          .store(out + i, count);
    }
  };
  vector_range(0, vector);
  if (in.vector_tail) {
    vector_range(vector, n);
  } else {
    for (int64_t i = vector; i < n; ++i) out[i] = F::Scalar(a[i], b[i], c[i], in.lo, in.hi);
  }
}

inline void RunInstruction(const PointwiseInstruction& in, const float* a, const float* b,
                           const float* c, float* out, int64_t vector, int64_t n) {
  switch (in.op) {
#define SR_POINTWISE_CASE(op) \
  case PointwiseOp::op:       \
    return Run<PointwiseOp::op>(in, a, b, c, out, vector, n);
    SR_POINTWISE_CASE(kAdd)
    SR_POINTWISE_CASE(kSub)
    SR_POINTWISE_CASE(kMul)
    SR_POINTWISE_CASE(kDiv)
    SR_POINTWISE_CASE(kGt)
    SR_POINTWISE_CASE(kLt)
    SR_POINTWISE_CASE(kGe)
    SR_POINTWISE_CASE(kLe)
    SR_POINTWISE_CASE(kEq)
    SR_POINTWISE_CASE(kNe)
    SR_POINTWISE_CASE(kToFloat)
    SR_POINTWISE_CASE(kToBool)
    SR_POINTWISE_CASE(kToInt32)
    SR_POINTWISE_CASE(kToInt64)
    SR_POINTWISE_CASE(kWhere)
    SR_POINTWISE_CASE(kMaskedFill)
    SR_POINTWISE_CASE(kNeg)
    SR_POINTWISE_CASE(kAbs)
    SR_POINTWISE_CASE(kRelu)
    SR_POINTWISE_CASE(kSigmoid)
    SR_POINTWISE_CASE(kTanh)
    SR_POINTWISE_CASE(kExp)
    SR_POINTWISE_CASE(kLog)
    SR_POINTWISE_CASE(kLog1p)
    SR_POINTWISE_CASE(kSqrt)
    SR_POINTWISE_CASE(kRsqrt)
    SR_POINTWISE_CASE(kSilu)
    SR_POINTWISE_CASE(kGelu)
    SR_POINTWISE_CASE(kGeluTanh)
    SR_POINTWISE_CASE(kHardswish)
    SR_POINTWISE_CASE(kHardsigmoid)
    SR_POINTWISE_CASE(kLeakyRelu)
    SR_POINTWISE_CASE(kClamp)
    SR_POINTWISE_CASE(kClampMin)
    SR_POINTWISE_CASE(kClampMax)
#undef SR_POINTWISE_CASE
  }
}

// Elements [start, start + n) of a non-contiguous or non-float input, row
// by row, as floats.
template <typename T>
void LayOutRows(const T* data, const PointwiseInput& input, int64_t start, int64_t n, float* out) {
  if (input.inner == 0) {  // a contiguous non-float input
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(data[start + i]);
    return;
  }
  int64_t row = start / input.inner;
  int64_t column = start % input.inner;
  for (int64_t i = 0; i < n; ++row, column = 0) {
    const int64_t count = std::min(input.inner - column, n - i);
    const T* from = data + row * input.row_stride + column * input.inner_stride;
    if (input.inner_stride == 0) {
      std::fill(out + i, out + i + count, static_cast<float>(*from));
    } else {
      for (int64_t j = 0; j < count; ++j) {
        out[i + j] = static_cast<float>(from[j * input.inner_stride]);
      }
    }
    i += count;
  }
}

inline void LayOut(const PointwiseInput& input, int64_t start, int64_t n, float* out) {
  switch (input.element) {
    case ElementType::kFloat:
      return LayOutRows(static_cast<const float*>(input.data), input, start, n, out);
    case ElementType::kBool:
      return LayOutRows(static_cast<const bool*>(input.data), input, start, n, out);
    case ElementType::kInt32:
      return LayOutRows(static_cast<const int32_t*>(input.data), input, start, n, out);
    case ElementType::kInt64:
      return LayOutRows(static_cast<const int64_t*>(input.data), input, start, n, out);
  }
}

// Elements [start, start + n) of an output of type `result` (bool or
// integer), from their floats.
inline void Convert(const float* values, int64_t n, ElementType result, void* output,
                    int64_t start) {
  auto convert = [&](auto* typed) {
    using T = std::remove_pointer_t<decltype(typed)>;
    for (int64_t i = 0; i < n; ++i) typed[start + i] = static_cast<T>(values[i]);
  };
  switch (result) {
    case ElementType::kBool:
      return convert(static_cast<bool*>(output));
    case ElementType::kInt32:
      return convert(static_cast<int32_t*>(output));
    case ElementType::kInt64:
      return convert(static_cast<int64_t*>(output));
    case ElementType::kFloat:
      return;
  }
}

inline void EvaluateRange(const PointwiseProgram& program, const PointwiseInput* inputs,
                          void* const* outputs, int64_t begin, int64_t end) {
  // ATen's vectorized loop runs pairs of vectors from the start of its range.
  const int64_t pair = 2 * Vec::size();
  const int64_t split = begin + (end - begin) / pair * pair;
  alignas(64) float scratch[kMaxPointwiseInstructions][kTile];
  const float* tile_of[kMaxPointwiseRegisters];  // by register, for the current tile
  // The inputs the instructions read: contiguous ones in place, numbers laid
  // out once, the others laid out per tile.
  alignas(64) float laid_out[kMaxLaidOutInputs][kTile];
  int32_t contiguous[kMaxPointwiseInputs];
  int32_t strided[kMaxLaidOutInputs];
  float* strided_tile[kMaxLaidOutInputs];
  int num_contiguous = 0, num_strided = 0, num_laid_out = 0;
  bool seen[kMaxPointwiseInputs] = {};
  auto classify = [&](int32_t reg) {
    if (reg >= program.num_inputs || seen[reg]) return;
    seen[reg] = true;
    const PointwiseInput& input = inputs[reg];
    if (input.data != nullptr && input.inner == 0 && input.element == ElementType::kFloat) {
      contiguous[num_contiguous++] = reg;
      return;
    }
    float* tile = laid_out[num_laid_out++];
    tile_of[reg] = tile;
    if (input.data == nullptr) {
      const Vec scalar(input.scalar);  // whole vectors: a tile holds whole pairs
      for (int64_t i = 0; i < std::min(kTile, end - begin); i += Vec::size()) {
        scalar.store(tile + i);
      }
    } else {
      strided_tile[num_strided] = tile;
      strided[num_strided++] = reg;
    }
  };
  for (const PointwiseInstruction& in : program.code) ForEachOperand(in, classify);
  const size_t size = program.code.size();
  for (int64_t start = begin; start < end; start += kTile) {
    const int64_t n = std::min(kTile, end - start);
    const int64_t vector = std::clamp<int64_t>(split - start, 0, n);
    for (int i = 0; i < num_contiguous; ++i) {
      tile_of[contiguous[i]] = static_cast<const float*>(inputs[contiguous[i]].data) + start;
    }
    for (int i = 0; i < num_strided; ++i) LayOut(inputs[strided[i]], start, n, strided_tile[i]);
    for (size_t k = 0; k < size; ++k) {
      const PointwiseInstruction& in = program.code[k];
      // A bool or integer result goes to its output from the scratch.
      const ElementType result = ResultTypeOf(in.op);
      const bool to_floats = outputs[k] != nullptr && result == ElementType::kFloat;
      float* out = to_floats ? static_cast<float*>(outputs[k]) + start : scratch[k];
      const float* a = tile_of[in.a];
      const float* b = NumOperands(in.op) >= 2 ? tile_of[in.b] : a;
      const float* c = NumOperands(in.op) == 3 ? tile_of[in.c] : a;
      RunInstruction(in, a, b, c, out, vector, n);
      if (outputs[k] != nullptr && !to_floats) Convert(out, n, result, outputs[k], start);
      tile_of[program.num_inputs + k] = out;
    }
  }
}

}  // namespace CPU_CAPABILITY
}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_ELEMENTWISE_POINTWISE_EVAL_IMPL_H_
