// A fused group of float32 elementwise ops as a small register program, and
// the per-ISA function that evaluates it over a range of elements the way
// ATen's own CPU kernels compute each op, bit for bit.
//
// Registers 0..num_inputs-1 are the group's inputs (PointwiseInput);
// instruction k writes register num_inputs + k. A register holds floats; a
// bool (a comparison's result, a bool tensor input) is held as 0 or 1,
// which is also its value in ATen's arithmetic with floats. Every op is evaluated per element with
// the formula ATen uses for that element: ATen's vectorized loops (cpu_kernel_vec) run pairs of
// vectors from the start of the range and the scalar formula on the rest; its VML ops (tanh, exp,
// ...) run every element through the vector function. `vector_tail` says which of the two an op's
// ATen kernel does; the probe in pointwise_eval.cc finds out at first use.
#ifndef STATIC_RUNTIME_OPS_ELEMENTWISE_POINTWISE_PROGRAM_H_
#define STATIC_RUNTIME_OPS_ELEMENTWISE_POINTWISE_PROGRAM_H_

#include <cstdint>
#include <vector>

#include "ir/operators/pointwise_op.h"

namespace static_runtime {
namespace ops {

using ::static_runtime::ElementType;
using ::static_runtime::IsComparison;
using ::static_runtime::IsConversion;
using ::static_runtime::IsExact;
using ::static_runtime::kNumPointwiseOps;
using ::static_runtime::NumOperands;
using ::static_runtime::PointwiseOp;
using ::static_runtime::ResultTypeOf;

struct PointwiseInstruction {
  PointwiseOp op;
  int32_t a = 0;
  int32_t b = 0;         // ops of two or three operands
  int32_t c = 0;         // ops of three
  float lo = 0, hi = 0;  // clamp's bounds; leaky_relu's slope is lo
  bool vector_tail = false;
  // ATen's split between the vector and scalar formulas cannot change the
  // result (they agree); required of an op reading a non-contiguous
  // operand unless vector_tail (ATen then runs the vector formula on every
  // element whatever the layout).
  bool split_free = false;
};

// Calls visit(register) for each register `instruction` reads: a, then b
// and c as its op takes them.
template <typename Visit>
void ForEachOperand(const PointwiseInstruction& instruction, Visit&& visit) {
  visit(instruction.a);
  if (NumOperands(instruction.op) >= 2) visit(instruction.b);
  if (NumOperands(instruction.op) == 3) visit(instruction.c);
}

struct PointwiseProgram {
  int32_t num_inputs = 0;
  std::vector<PointwiseInstruction> code;
};

// An input register: `data` (elements of type `element`) or, when null,
// `scalar` everywhere. Element p of the group
// reads data[p] when `inner` is 0 (a contiguous tensor), else
// data[(p / inner) * row_stride + (p % inner) * inner_stride]: rows of
// `inner` elements, e.g. a view of a wider tensor (row_stride > inner), a
// repeated row (row_stride 0) or a column of values each repeated `inner`
// times (inner_stride 0, row_stride 1).
// (No default member initializers: an array of them is left uninitialized
// per call; a braced initializer zeroes the members it leaves out.)
struct PointwiseInput {
  const void* data;
  float scalar;
  int64_t inner;
  int64_t inner_stride;
  int64_t row_stride;
  ElementType element;
};

// A contiguous float input in place, and a number.
inline PointwiseInput ContiguousFloats(const void* data) {
  PointwiseInput input{};
  input.data = data;
  return input;
}
inline PointwiseInput Number(float value) {
  PointwiseInput input{};
  input.scalar = value;
  return input;
}

// The most inputs a program may read that are numbers, not floats or not
// contiguous.
inline constexpr int kMaxLaidOutInputs = 16;

// Evaluates `program` on elements [begin, end) of its inputs; `outputs[k]`
// receives register num_inputs + k when not null, as floats or, for a
// comparison, as the bytes of a bool tensor (other registers live in the
// evaluator's scratch). Elements are split as ATen splits the range
// [begin, end) of one loop call. (An op with a non-contiguous operand loops
// over rows in ATen; such an op must be split_free or vector_tail, so the
// rows cannot show.)
using PointwiseRangeFn = void (*)(const PointwiseProgram& program, const PointwiseInput* inputs,
                                  void* const* outputs, int64_t begin, int64_t end);

// The largest program an evaluator takes: instructions, inputs (a fused
// node's at most three per op), registers.
inline constexpr int kMaxPointwiseInstructions = 32;
inline constexpr int kMaxPointwiseInputs = 3 * kMaxPointwiseInstructions;
inline constexpr int kMaxPointwiseRegisters = kMaxPointwiseInputs + kMaxPointwiseInstructions;

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_ELEMENTWISE_POINTWISE_PROGRAM_H_
