#include "ops/conv_error_bound.h"

#include <limits>

namespace static_runtime {
namespace ops {

at::Tensor Conv2dFusedErrorBound(const std::vector<c10::IValue>& inputs, const at::Tensor& exact) {
  const auto magnitude_of = [](const c10::IValue& value) -> c10::optional<at::Tensor> {
    if (!value.isTensor()) return c10::nullopt;
    return value.toTensor().to(at::kDouble).abs();
  };
  const at::Tensor weight = inputs[1].toTensor();
  at::Tensor magnitude =
      at::conv2d(*magnitude_of(inputs[0]), *magnitude_of(inputs[1]), magnitude_of(inputs[2]),
                 inputs[3].toIntVector(), inputs[4].toIntVector(), inputs[5].toIntVector(),
                 inputs[6].toInt());
  if (c10::optional<at::Tensor> residual = magnitude_of(inputs[7])) {
    magnitude = magnitude + *residual;
  }
  const double length = static_cast<double>(weight.size(1) * weight.size(2) * weight.size(3));
  const double slope = inputs[8].toStringRef() == "hardswish" ? 1.5 : 1.0;
  const double eps = std::numeric_limits<float>::epsilon();
  return magnitude * (2 * (length + 2) * eps * slope) + exact.to(at::kDouble).abs() * (4 * eps);
}

}  // namespace ops
}  // namespace static_runtime
