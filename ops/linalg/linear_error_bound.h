// The error bound linear_fused declares (ErrorBound in ops/core/registry.h):
// ops/core/error_bounds.h's sum-of-products bound.
#ifndef STATIC_RUNTIME_OPS_LINALG_LINEAR_ERROR_BOUND_H_
#define STATIC_RUNTIME_OPS_LINALG_LINEAR_ERROR_BOUND_H_

#include <vector>

#include "ATen/ATen.h"
#include "ATen/core/ivalue.h"

namespace static_runtime {
namespace ops {

// The same for linear_fused (input, weight, bias, activation, min_value,
// max_value), with L the input's last dimension.
at::Tensor LinearFusedErrorBound(const std::vector<c10::IValue>& inputs, const at::Tensor& exact);

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_LINALG_LINEAR_ERROR_BOUND_H_
