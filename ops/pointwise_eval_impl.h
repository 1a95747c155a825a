// The body of the pointwise evaluators (ops/pointwise_program.h), included
// once per ISA by a translation unit compiled with that ISA's flags and
// ATen's CPU_CAPABILITY macros, so at::vec::Vectorized<float> is that ISA's.
#ifndef STATIC_RUNTIME_OPS_POINTWISE_EVAL_IMPL_H_
#define STATIC_RUNTIME_OPS_POINTWISE_EVAL_IMPL_H_

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "ATen/cpu/vec/functional.h"
#include "ATen/cpu/vec/vec.h"
#include "ops/pointwise_program.h"

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

// An operand of one tile: `data` from the tile's first element, or a scalar.
struct Operand {
  const float* data;
  float scalar;
  Vec Load(int64_t i) const { return data ? Vec::loadu(data + i) : Vec(scalar); }
  Vec LoadPartial(int64_t i, int64_t count) const {
    return data ? Vec::loadu(data + i, count) : Vec(scalar);
  }
  float At(int64_t i) const { return data ? data[i] : scalar; }
};

// Each op as ATen's CPU kernel writes its vector and scalar formulas.
inline Vec ApplyVector(const PointwiseInstruction& in, Vec a, Vec b) {
  switch (in.op) {
    case PointwiseOp::kAdd:
      return a + b;
    case PointwiseOp::kSub:
      return a - b;
    case PointwiseOp::kMul:
      return a * b;
    case PointwiseOp::kDiv:
      return a / b;
    case PointwiseOp::kNeg:
      return a.neg();
    case PointwiseOp::kAbs:
      return a.abs();
    case PointwiseOp::kRelu:
      return at::vec::clamp_min(a, Vec(0.f));
    case PointwiseOp::kSigmoid:
      a = Vec(0.f) - a;
      a = a.exp();
      a = a + Vec(1.f);
      return a.reciprocal();
    case PointwiseOp::kTanh:
      return a.tanh();
    case PointwiseOp::kExp:
      return a.exp();
    case PointwiseOp::kLog:
      return a.log();
    case PointwiseOp::kSqrt:
      return a.sqrt();
    case PointwiseOp::kRsqrt:
      return a.rsqrt();
    case PointwiseOp::kClamp:
      return at::vec::clamp(a, Vec(in.lo), Vec(in.hi));
  }
  return a;
}

inline float ApplyScalar(const PointwiseInstruction& in, float a, float b) {
  switch (in.op) {
    case PointwiseOp::kAdd:
      return a + b;
    case PointwiseOp::kSub:
      return a - b;
    case PointwiseOp::kMul:
      return a * b;
    case PointwiseOp::kDiv:
      return a / b;
    case PointwiseOp::kNeg:
      return -a;
    case PointwiseOp::kAbs:
      return std::abs(a);
    case PointwiseOp::kRelu:
      return std::max(a, 0.f);
    case PointwiseOp::kSigmoid:
      return 1.f / (1.f + std::exp(-a));
    case PointwiseOp::kTanh:
      return std::tanh(a);
    case PointwiseOp::kExp:
      return std::exp(a);
    case PointwiseOp::kLog:
      return std::log(a);
    case PointwiseOp::kSqrt:
      return std::sqrt(a);
    case PointwiseOp::kRsqrt:
      return 1.f / std::sqrt(a);
    case PointwiseOp::kClamp:
      return std::min(std::max(a, in.lo), in.hi);
  }
  return a;
}

// The vector formula on elements [i, j) of a tile (a partial vector at the
// end: the formulas work lane by lane).
inline void VectorRange(const PointwiseInstruction& in, const Operand& a, const Operand& b,
                        float* out, int64_t i, int64_t j) {
  for (; i + Vec::size() <= j; i += Vec::size()) {
    ApplyVector(in, a.Load(i), b.Load(i)).store(out + i);
  }
  if (i < j) {
    const int64_t count = j - i;
    ApplyVector(in, a.LoadPartial(i, count), b.LoadPartial(i, count)).store(out + i, count);
  }
}

// What ATen computes after the vector pairs of a loop: the scalar formula,
// or, for its VML ops, the vector one.
inline void TailRange(const PointwiseInstruction& in, const Operand& a, const Operand& b,
                      float* out, int64_t i, int64_t j) {
  if (in.vector_tail) {
    VectorRange(in, a, b, out, i, j);
    return;
  }
  for (; i < j; ++i) out[i] = ApplyScalar(in, a.At(i), b.At(i));
}

inline void EvaluateRange(const PointwiseProgram& program, const PointwiseInput* inputs,
                          float* const* outputs, int64_t begin, int64_t end) {
  // ATen's vectorized loop runs pairs of vectors from the start of its range.
  const int64_t pair = 2 * Vec::size();
  const int64_t split = begin + (end - begin) / pair * pair;
  alignas(64) float scratch[kMaxPointwiseInstructions][kTile];
  alignas(64) float broadcast[kMaxBroadcastInputs][kTile];
  float* registers[kMaxPointwiseInstructions];
  const float* gathered[3 * kMaxPointwiseInstructions];
  const size_t size = program.code.size();
  for (int64_t start = begin; start < end; start += kTile) {
    const int64_t n = std::min(kTile, end - start);
    const int64_t vector = std::clamp<int64_t>(split - start, 0, n);
    // Broadcast inputs, laid out element by element for this tile.
    int used = 0;
    for (int32_t reg = 0; reg < program.num_inputs; ++reg) {
      const PointwiseInput& input = inputs[reg];
      if (input.data == nullptr || input.count == 0) continue;
      float* row = broadcast[used++];
      for (int64_t i = 0; i < n; ++i) {
        row[i] = input.data[((start + i) / input.divisor) % input.count];
      }
      gathered[reg] = row;
    }
    auto operand = [&](int32_t reg) -> Operand {
      if (reg < program.num_inputs) {
        const PointwiseInput& input = inputs[reg];
        if (input.data == nullptr) return {nullptr, input.scalar};
        return {input.count > 0 ? gathered[reg] : input.data + start, 0.f};
      }
      return {registers[reg - program.num_inputs], 0.f};
    };
    for (size_t k = 0; k < size; ++k) {
      const PointwiseInstruction& in = program.code[k];
      registers[k] = outputs[k] ? outputs[k] + start : scratch[k];
      const Operand a = operand(in.a);
      const Operand b = IsBinary(in.op) ? operand(in.b) : Operand{nullptr, 0.f};
      // The first `vector` elements of the tile are in ATen's vector pairs.
      VectorRange(in, a, b, registers[k], 0, vector);
      TailRange(in, a, b, registers[k], vector, n);
    }
  }
}

}  // namespace CPU_CAPABILITY
}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_POINTWISE_EVAL_IMPL_H_
