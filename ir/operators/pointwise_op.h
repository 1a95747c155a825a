// The elementwise ops FusePointwise puts into a fused group
// (ir/operators/pointwise_match.h says which node is which op) and that the fused
// kernel's programs are made of (ops/elementwise/pointwise_program.h). Only the enum and
// constexpr helpers: the per-ISA evaluators include this header.
#ifndef STATIC_RUNTIME_IR_OPERATORS_POINTWISE_OP_H_
#define STATIC_RUNTIME_IR_OPERATORS_POINTWISE_OP_H_

#include <cstdint>

namespace static_runtime {

enum class PointwiseOp : uint8_t {
  // Binary: a op b.
  kAdd,  // ATen's add and sub with alpha 1
  kSub,
  kMul,
  kDiv,
  // Comparisons: a op b, a bool.
  kGt,
  kLt,
  kGe,
  kLe,
  kEq,
  kNe,
  // Conversions: float(a) (of a float, a bool or an integer, converted when
  // read); bool(a), a != 0 (NaN is true); int32(a) and int64(a), a
  // truncated, and as x86 converts (ATen's static_cast), the lowest value
  // for NaN and what the type cannot hold.
  kToFloat,
  kToBool,
  kToInt32,
  kToInt64,
  // Selections: c ? a : b (where(c, a, b)); b ? c : a (masked_fill(a, b, c)).
  kWhere,
  kMaskedFill,
  // Unary.
  kNeg,
  kAbs,
  kRelu,  // clamp_min(a, 0)
  kSigmoid,
  kTanh,
  kExp,
  kLog,
  kLog1p,
  kSqrt,
  kRsqrt,
  kSilu,
  kGelu,      // approximate='none' (erf)
  kGeluTanh,  // approximate='tanh'
  kHardswish,
  kHardsigmoid,
  // Unary with constant parameters.
  kLeakyRelu,  // a > 0 ? a : a * slope
  kClamp,      // min(max(a, lo), hi): clamp with two bounds, hardtanh
  kClampMin,   // max(a, lo): clamp(min=lo), clamp_min
  kClampMax,   // min(a, hi): clamp(max=hi), clamp_max
};
inline constexpr int kNumPointwiseOps = static_cast<int>(PointwiseOp::kClampMax) + 1;

// How many operands (a, b, c) the op reads.
constexpr int NumOperands(PointwiseOp op) {
  if (op <= PointwiseOp::kNe) return 2;
  if (op == PointwiseOp::kWhere || op == PointwiseOp::kMaskedFill) return 3;
  return 1;
}
// Comparisons: a op b.
constexpr bool IsComparison(PointwiseOp op) {
  return op >= PointwiseOp::kGt && op <= PointwiseOp::kNe;
}
constexpr bool IsConversion(PointwiseOp op) {
  return op >= PointwiseOp::kToFloat && op <= PointwiseOp::kToInt64;
}
// The element types of the tensors the fused kernel reads and writes: an
// input's (each element read as a float, converted as ATen converts it,
// static_cast) and an op's result's.
enum class ElementType : uint8_t { kFloat, kBool, kInt32, kInt64 };
// The element type of an op's result tensor.
constexpr ElementType ResultTypeOf(PointwiseOp op) {
  if (IsComparison(op) || op == PointwiseOp::kToBool) return ElementType::kBool;
  if (op == PointwiseOp::kToInt32) return ElementType::kInt32;
  if (op == PointwiseOp::kToInt64) return ElementType::kInt64;
  return ElementType::kFloat;
}
// Ops whose result is exact (a comparison, a conversion, a choice among
// operands), so that ATen's choice of formula cannot show: never probed.
constexpr bool IsExact(PointwiseOp op) {
  return op >= PointwiseOp::kGt && op <= PointwiseOp::kMaskedFill;
}

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_IR_OPERATORS_POINTWISE_OP_H_
