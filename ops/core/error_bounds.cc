#include "ops/core/error_bounds.h"

#include <limits>

namespace static_runtime {
namespace ops {
namespace {

// Whether `activation` is computed from exp or erf, whose roundings grow
// with the activation's input, not only with its result.
bool Transcendental(const std::string& activation) {
  return activation == "gelu" || activation == "silu";
}

}  // namespace

c10::optional<at::Tensor> Magnitude(const c10::IValue& value) {
  if (!value.isTensor()) return c10::nullopt;
  return value.toTensor().to(at::kDouble).abs();
}

at::Tensor SumBound(const at::Tensor& magnitude, int64_t length, const std::string& activation,
                    const at::Tensor& exact) {
  // The steepest slopes: hardswish 1.5, gelu 1.129, silu 1.100.
  const double slope = activation == "hardswish" ? 1.5 : Transcendental(activation) ? 1.13 : 1.0;
  const double eps = std::numeric_limits<float>::epsilon();
  const double underflow =
      (static_cast<double>(length) + 2) * slope * std::numeric_limits<float>::min();
  at::Tensor bound = magnitude * (2 * (static_cast<double>(length) + 2) * eps * slope) +
                     exact.to(at::kDouble).abs() * (4 * eps) + underflow;
  if (Transcendental(activation)) bound = bound + magnitude * (4 * eps);
  return bound;
}

}  // namespace ops
}  // namespace static_runtime
