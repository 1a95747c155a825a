#include "ops/elementwise/scalar_operand_loops.h"

#include <algorithm>

#include "ops/core/per_isa.h"

namespace static_runtime {
namespace ops {

bool DefaultSizeOneStrides(const at::Tensor& a) {
  int64_t later = 1;  // the product of the later dimensions' sizes
  for (int64_t d = a.dim() - 1; d >= 0; --d) {
    if (a.size(d) == 1 && a.stride(d) != later) return false;
    later *= std::max<int64_t>(a.size(d), 1);
  }
  return true;
}

bool SmallPlainFloat(const at::Tensor& a) {
  return a.scalar_type() == at::kFloat && a.numel() > 0 && a.numel() <= 32768 &&
         a.layout() == at::kStrided && a.is_cpu() && a.is_contiguous() &&
         DefaultSizeOneStrides(a) && !a.is_neg() && !a.is_conj() && !a.has_names();
}

std::optional<float> FloatNumber(const c10::IValue& number) {
  if (number.isDouble()) return static_cast<float>(number.toDouble());
  if (number.isInt()) return static_cast<float>(number.toInt());
  return std::nullopt;
}

namespace {

// out[i] = op(a[i]): float results, or bool for a comparison.
template <typename Out, typename Op>
__attribute__((always_inline)) inline void Map(const float* a, int64_t n, Out* out, Op op) {
  for (int64_t i = 0; i < n; ++i) out[i] = op(a[i]);
}

template <typename Op>
__attribute__((always_inline)) inline void Zip(const float* a, const float* b, int64_t n,
                                               float* out, Op op) {
  for (int64_t i = 0; i < n; ++i) out[i] = op(a[i], b[i]);
}

}  // namespace

STATIC_RUNTIME_PER_ISA void ArithmeticWithScalar(ScalarArithmetic op, const float* a, float b,
                                                 int64_t n, float* out) {
  switch (op) {
    case ScalarArithmetic::kAdd:
      return Map(a, n, out, [b](float x) { return x + b; });
    case ScalarArithmetic::kSub:
      return Map(a, n, out, [b](float x) { return x - b; });
    case ScalarArithmetic::kMul:
      return Map(a, n, out, [b](float x) { return x * b; });
    case ScalarArithmetic::kDiv:
      return Map(a, n, out, [b](float x) { return x / b; });
  }
}

STATIC_RUNTIME_PER_ISA void ArithmeticElementwise(ScalarArithmetic op, const float* a,
                                                  const float* b, int64_t n, float* out) {
  switch (op) {
    case ScalarArithmetic::kAdd:
      return Zip(a, b, n, out, [](float x, float y) { return x + y; });
    case ScalarArithmetic::kSub:
      return Zip(a, b, n, out, [](float x, float y) { return x - y; });
    case ScalarArithmetic::kMul:
      return Zip(a, b, n, out, [](float x, float y) { return x * y; });
    case ScalarArithmetic::kDiv:
      return Zip(a, b, n, out, [](float x, float y) { return x / y; });
  }
}

STATIC_RUNTIME_PER_ISA void CompareWithScalar(ScalarComparison op, const float* a, float b,
                                              int64_t n, bool* out) {
  switch (op) {
    case ScalarComparison::kEq:
      return Map(a, n, out, [b](float x) { return x == b; });
    case ScalarComparison::kNe:
      return Map(a, n, out, [b](float x) { return x != b; });
    case ScalarComparison::kLt:
      return Map(a, n, out, [b](float x) { return x < b; });
    case ScalarComparison::kLe:
      return Map(a, n, out, [b](float x) { return x <= b; });
    case ScalarComparison::kGt:
      return Map(a, n, out, [b](float x) { return x > b; });
    case ScalarComparison::kGe:
      return Map(a, n, out, [b](float x) { return x >= b; });
  }
}

STATIC_RUNTIME_PER_ISA void ClampWithScalars(const float* a, std::optional<float> low,
                                             std::optional<float> high, int64_t n, float* out) {
  if (low && high) {
    const float lo = *low, hi = *high;
    return Map(a, n, out, [lo, hi](float x) {
      const float y = x < lo ? lo : x;
      return hi < y ? hi : y;
    });
  }
  if (low) {
    const float lo = *low;
    return Map(a, n, out, [lo](float x) { return x < lo ? lo : x; });
  }
  const float hi = *high;
  Map(a, n, out, [hi](float x) { return hi < x ? hi : x; });
}

}  // namespace ops
}  // namespace static_runtime
