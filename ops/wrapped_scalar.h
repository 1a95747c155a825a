// A Scalar argument as the wrapped 0-dim tensor ATen's Scalar overloads make
// of it (at::native::wrapped_scalar_tensor), without allocating: one tensor
// per thread and scalar kind (double, int64, bool) is rewritten in place.
// The result is valid until this thread's next call; kernels pass it
// straight to a Tensor-Tensor kernel and drop it.
#ifndef STATIC_RUNTIME_OPS_WRAPPED_SCALAR_H_
#define STATIC_RUNTIME_OPS_WRAPPED_SCALAR_H_

#include "ATen/ATen.h"

namespace static_runtime {

at::Tensor WrappedScalar(const at::Scalar& scalar);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_WRAPPED_SCALAR_H_
