// The elementwise ops FusePointwise puts into a fused group
// (passes/fuse_pointwise.h says which node is which op) and that the fused
// kernel's programs are made of (ops/pointwise_program.h). Only the enum and
// constexpr helpers: the per-ISA evaluators include this header.
#ifndef STATIC_RUNTIME_PASSES_POINTWISE_OP_H_
#define STATIC_RUNTIME_PASSES_POINTWISE_OP_H_

#include <cstdint>

namespace static_runtime {

enum class PointwiseOp : uint8_t {
  // Binary: a op b.
  kAdd,  // ATen's add and sub with alpha 1
  kSub,
  kMul,
  kDiv,
  // Unary.
  kNeg,
  kAbs,
  kRelu,  // clamp_min(a, 0)
  kSigmoid,
  kTanh,
  kExp,
  kLog,
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
};
inline constexpr int kNumPointwiseOps = static_cast<int>(PointwiseOp::kClamp) + 1;
constexpr bool IsBinary(PointwiseOp op) { return op <= PointwiseOp::kDiv; }

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_POINTWISE_OP_H_
