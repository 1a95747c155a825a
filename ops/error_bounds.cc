#include "ops/error_bounds.h"

#include <limits>
#include <string>

namespace static_runtime {
namespace ops {
namespace {

c10::optional<at::Tensor> Magnitude(const c10::IValue& value) {
  if (!value.isTensor()) return c10::nullopt;
  return value.toTensor().to(at::kDouble).abs();
}

at::Tensor SumBound(const at::Tensor& magnitude, int64_t length, const std::string& activation,
                    const at::Tensor& exact) {
  const double slope = activation == "hardswish" ? 1.5 : 1.0;
  const double eps = std::numeric_limits<float>::epsilon();
  return magnitude * (2 * (static_cast<double>(length) + 2) * eps * slope) +
         exact.to(at::kDouble).abs() * (4 * eps);
}

}  // namespace

at::Tensor Conv2dFusedErrorBound(const std::vector<c10::IValue>& inputs, const at::Tensor& exact) {
  const at::Tensor weight = inputs[1].toTensor();
  at::Tensor magnitude =
      at::conv2d(*Magnitude(inputs[0]), *Magnitude(inputs[1]), Magnitude(inputs[2]),
                 inputs[3].toIntVector(), inputs[4].toIntVector(), inputs[5].toIntVector(),
                 inputs[6].toInt());
  if (c10::optional<at::Tensor> residual = Magnitude(inputs[7])) {
    magnitude = magnitude + *residual;
  }
  return SumBound(magnitude, weight.size(1) * weight.size(2) * weight.size(3),
                  inputs[8].toStringRef(), exact);
}

at::Tensor LinearFusedErrorBound(const std::vector<c10::IValue>& inputs, const at::Tensor& exact) {
  const at::Tensor magnitude =
      at::linear(*Magnitude(inputs[0]), *Magnitude(inputs[1]), Magnitude(inputs[2]));
  return SumBound(magnitude, inputs[1].toTensor().size(1), inputs[3].toStringRef(), exact);
}

}  // namespace ops
}  // namespace static_runtime
