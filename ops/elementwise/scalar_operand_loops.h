// Elementwise loops of a float32 tensor with scalar operands (x * 0.5, q / 8.0,
// y.mean() < 10.0, x.clamp(-1.0, 1.0)) on small contiguous tensors, where ATen's TensorIterator
// setup costs ten times the loop: `out[i] = a[i] op b` with ATen 1.13's
// arithmetic for a float tensor and a wrapped Python number (the number
// rounded to float once, then one float operation per element), so the
// same bits. Buffers are contiguous and `n` elements long; `out` may be `a`.
#ifndef STATIC_RUNTIME_OPS_ELEMENTWISE_SCALAR_OPERAND_LOOPS_H_
#define STATIC_RUNTIME_OPS_ELEMENTWISE_SCALAR_OPERAND_LOOPS_H_

#include <cstdint>
#include <optional>

#include "ATen/ATen.h"

namespace static_runtime {
namespace ops {

// Whether each size-1 dimension of `a` has the stride a new contiguous
// tensor of its sizes has there (the product of the later sizes):
// is_contiguous() and broadcasting ignore those strides, but ATen's result
// keeps them (x.transpose(0, 1) * 2.0 of an x of [2, 1] has x's strides
// (1, 1)), and a model can read them; so kernels whose results are
// contiguous take only such inputs.
bool DefaultSizeOneStrides(const at::Tensor& a);

// Whether `a` is the tensor these loops take: float32, contiguous (with
// DefaultSizeOneStrides), on the CPU, plain (no names, negative or
// conjugate view), of 1 to 32768 elements (larger ones ATen splits across
// intra-op threads; an empty one's result has the strides ATen's iterator
// gives it, not a contiguous tensor's: x[1:] * 2.0 of an x of [1, 1] has
// strides (1, 0)).
bool SmallPlainFloat(const at::Tensor& a);

// A real Python number (int or float) as ATen applies it to a float32
// tensor: rounded to float once; nullopt for other values.
std::optional<float> FloatNumber(const c10::IValue& number);

enum class ScalarArithmetic { kAdd, kSub, kMul, kDiv };
void ArithmeticWithScalar(ScalarArithmetic op, const float* a, float b, int64_t n, float* out);
// The same with a tensor of a's size: out[i] = a[i] op b[i] (`out` may be
// `a` or `b`).
void ArithmeticElementwise(ScalarArithmetic op, const float* a, const float* b, int64_t n,
                           float* out);

enum class ScalarComparison { kEq, kNe, kLt, kLe, kGt, kGe };
void CompareWithScalar(ScalarComparison op, const float* a, float b, int64_t n, bool* out);

// clamp with one or two number bounds (none NaN): max(a, low), then
// min(., high), as std::max and std::min pick (NaN and -0.0 stay).
void ClampWithScalars(const float* a, std::optional<float> low, std::optional<float> high,
                      int64_t n, float* out);

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_ELEMENTWISE_SCALAR_OPERAND_LOOPS_H_
