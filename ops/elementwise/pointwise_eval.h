// The pointwise evaluator (ops/elementwise/pointwise_program.h) that matches ATen's own
// kernels on this CPU, chosen once per process by a probe: for each ISA
// ATen may dispatch to (AVX512, AVX2) and each op, the evaluator's result is
// compared bit for bit (NaNs by position) with ATen's op on ranges whose
// vector/scalar split differs between ISAs and between the two tail rules,
// and on special values (NaN, infinities, signed zeros, tiny numbers). A
// unary op is fusible when one tail rule matches, a binary op when both do
// (its split then cannot matter, see PointwiseInstruction); the ISA with
// the most such ops is used. Other ops are never fused. Comparisons and
// selections are exact (no rounding), so they are not probed.
#ifndef STATIC_RUNTIME_OPS_ELEMENTWISE_POINTWISE_EVAL_H_
#define STATIC_RUNTIME_OPS_ELEMENTWISE_POINTWISE_EVAL_H_

#include <array>

#include "ops/elementwise/pointwise_program.h"

namespace static_runtime {
namespace ops {

struct PointwiseEvaluator {
  PointwiseRangeFn range = nullptr;  // null when no ISA matched anything
  const char* isa = "none";
  std::array<bool, kNumPointwiseOps> matches{};      // by PointwiseOp
  std::array<bool, kNumPointwiseOps> vector_tail{};  // the tail rule that matched
  std::array<bool, kNumPointwiseOps> split_free{};   // both tail rules matched
};

const PointwiseEvaluator& PointwiseEvaluatorForThisCpu();

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_ELEMENTWISE_POINTWISE_EVAL_H_
