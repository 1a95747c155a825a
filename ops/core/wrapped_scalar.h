// A Scalar argument as the wrapped 0-dim tensor ATen's Scalar overloads make
// of it (at::native::wrapped_scalar_tensor), without allocating: one tensor
// per thread and scalar kind (double, int64, bool) is rewritten in place.
// The result is valid until this thread's next call; kernels pass it
// straight to a Tensor-Tensor kernel and drop it.
//
// With `result_dtype` float32, a floating scalar is wrapped as a float32
// number: ATen's TensorIterator would otherwise convert the double to
// float32 in a freshly allocated 0-dim tensor on every call (the same
// static_cast, so the same bits; type promotion treats every floating
// wrapped number alike). Half and bfloat16 results keep the double, whose
// full value ATen's kernels read.
//
// IsOne: whether a Scalar argument (an alpha or beta) is the number 1, an
// integer or floating one, never a bool or complex: kernels skip the
// multiplication ATen skips for it.
#ifndef STATIC_RUNTIME_OPS_CORE_WRAPPED_SCALAR_H_
#define STATIC_RUNTIME_OPS_CORE_WRAPPED_SCALAR_H_

#include "ATen/ATen.h"

namespace static_runtime {

at::Tensor WrappedScalar(const at::Scalar& scalar,
                         at::ScalarType result_dtype = at::ScalarType::Undefined);

bool IsOne(const at::Scalar& scalar);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_CORE_WRAPPED_SCALAR_H_
