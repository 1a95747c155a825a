#include "ops/scalar_operand_loops.h"

namespace static_runtime {
namespace ops {
namespace {

template <typename Op>
__attribute__((always_inline)) inline void Map(const float* a, int64_t n, float* out, Op op) {
  for (int64_t i = 0; i < n; ++i) out[i] = op(a[i]);
}

template <typename Op>
__attribute__((always_inline)) inline void Test(const float* a, int64_t n, bool* out, Op op) {
  for (int64_t i = 0; i < n; ++i) out[i] = op(a[i]);
}

}  // namespace

__attribute__((target_clones("avx512f", "avx2", "default"))) void ArithmeticWithScalar(
    ScalarArithmetic op, const float* a, float b, int64_t n, float* out) {
  switch (op) {
    case ScalarArithmetic::kAdd:
      return Map(a, n, out, [b](float x) { return x + b; });
    case ScalarArithmetic::kSub:
      return Map(a, n, out, [b](float x) { return x - b; });
    case ScalarArithmetic::kMul:
      return Map(a, n, out, [b](float x) { return x * b; });
  }
}

__attribute__((target_clones("avx512f", "avx2", "default"))) void CompareWithScalar(
    ScalarComparison op, const float* a, float b, int64_t n, bool* out) {
  switch (op) {
    case ScalarComparison::kEq:
      return Test(a, n, out, [b](float x) { return x == b; });
    case ScalarComparison::kNe:
      return Test(a, n, out, [b](float x) { return x != b; });
    case ScalarComparison::kLt:
      return Test(a, n, out, [b](float x) { return x < b; });
    case ScalarComparison::kLe:
      return Test(a, n, out, [b](float x) { return x <= b; });
    case ScalarComparison::kGt:
      return Test(a, n, out, [b](float x) { return x > b; });
    case ScalarComparison::kGe:
      return Test(a, n, out, [b](float x) { return x >= b; });
  }
}

}  // namespace ops
}  // namespace static_runtime
