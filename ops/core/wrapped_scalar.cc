#include "ops/core/wrapped_scalar.h"

namespace static_runtime {

at::Tensor WrappedScalar(const at::Scalar& scalar, at::ScalarType result_dtype) {
  auto make = [](at::ScalarType dtype) {
    at::Tensor tensor = at::empty({}, at::TensorOptions().dtype(dtype));
    tensor.unsafeGetTensorImpl()->set_wrapped_number(true);
    return tensor;
  };
  thread_local const at::Tensor as_float = make(at::kFloat);
  thread_local const at::Tensor as_double = make(at::kDouble);
  thread_local const at::Tensor as_long = make(at::kLong);
  thread_local const at::Tensor as_bool = make(at::kBool);
  if (scalar.isFloatingPoint() && result_dtype == at::kFloat) {
    *as_float.data_ptr<float>() = static_cast<float>(scalar.toDouble());
    return as_float;
  }
  if (scalar.isFloatingPoint()) {
    *as_double.data_ptr<double>() = scalar.toDouble();
    return as_double;
  }
  if (scalar.isBoolean()) {
    *as_bool.data_ptr<bool>() = scalar.toBool();
    return as_bool;
  }
  if (scalar.isIntegral(/*includeBool=*/false)) {
    *as_long.data_ptr<int64_t>() = scalar.toLong();
    return as_long;
  }
  at::Tensor tensor = at::scalar_to_tensor(scalar);
  tensor.unsafeGetTensorImpl()->set_wrapped_number(true);
  return tensor;
}

bool IsOne(const at::Scalar& scalar) {
  return (scalar.isIntegral(/*includeBool=*/false) && scalar.toLong() == 1) ||
         (scalar.isFloatingPoint() && scalar.toDouble() == 1.0);
}

}  // namespace static_runtime
