// Kernels with declared error bounds, for tests of the harness and of `sr
// verify` only; a test adds them to the registry its models are loaded
// with. Both ops
// otherwise run as fallbacks; each kernel's bound is one part in 10^6 of the
// exact result.
// - aten::logit: ATen's result, its element 1 raised by one ulp (within its
//   bound): the rounding of a kernel with a declared bound.
// - aten::rad2deg: ATen's exact result, but it then zeroes its input, which
//   its schema says it only reads: what a memory plan that recycles a value
//   while it is still in use does to the nodes after it.
#ifndef STATIC_RUNTIME_VERIFY_BOUNDED_TEST_KERNELS_H_
#define STATIC_RUNTIME_VERIFY_BOUNDED_TEST_KERNELS_H_

#include "ops/core/registry.h"

namespace static_runtime {

void RegisterBoundedTestKernels(KernelRegistry& registry);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_VERIFY_BOUNDED_TEST_KERNELS_H_
