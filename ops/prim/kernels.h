// The prim family's kernels (scalars, containers, objects, strings and async), added to a registry
// from one function: ops/kernels.cc's table of families calls it.
#ifndef STATIC_RUNTIME_OPS_PRIM_KERNELS_H_
#define STATIC_RUNTIME_OPS_PRIM_KERNELS_H_

#include "ops/core/registry.h"

namespace static_runtime {

void RegisterPrimKernels(KernelRegistry& registry);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_PRIM_KERNELS_H_
