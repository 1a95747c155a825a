#include "ops/linalg/linear_error_bound.h"

#include "ops/core/error_bounds.h"

namespace static_runtime {
namespace ops {

at::Tensor LinearFusedErrorBound(const std::vector<c10::IValue>& inputs, const at::Tensor& exact) {
  const at::Tensor magnitude =
      at::linear(*Magnitude(inputs[0]), *Magnitude(inputs[1]), Magnitude(inputs[2]));
  return SumBound(magnitude, inputs[1].toTensor().size(1), inputs[3].toStringRef(), exact);
}

}  // namespace ops
}  // namespace static_runtime
