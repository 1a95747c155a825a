// Elementwise loops of a float32 tensor with a scalar operand (x * 0.5,
// y.mean() < 10.0) on small contiguous tensors, where ATen's TensorIterator
// setup costs ten times the loop: `out[i] = a[i] op b` with ATen 1.13's
// arithmetic for a float tensor and a wrapped Python number (the number
// rounded to float once, then one float operation per element), so the
// same bits. Buffers are contiguous and `n` elements long; `out` may be `a`.
#ifndef STATIC_RUNTIME_OPS_SCALAR_OPERAND_LOOPS_H_
#define STATIC_RUNTIME_OPS_SCALAR_OPERAND_LOOPS_H_

#include <cstdint>

namespace static_runtime {
namespace ops {

enum class ScalarArithmetic { kAdd, kSub, kMul };
void ArithmeticWithScalar(ScalarArithmetic op, const float* a, float b, int64_t n, float* out);

enum class ScalarComparison { kEq, kNe, kLt, kLe, kGt, kGe };
void CompareWithScalar(ScalarComparison op, const float* a, float b, int64_t n, bool* out);

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_SCALAR_OPERAND_LOOPS_H_
