// The linalg family's kernels (linear layers and matrix products), added to a registry from one
// function: ops/kernels.cc's table of families calls it.
#ifndef STATIC_RUNTIME_OPS_LINALG_KERNELS_H_
#define STATIC_RUNTIME_OPS_LINALG_KERNELS_H_

#include "ops/core/registry.h"

namespace static_runtime {

void RegisterLinalgKernels(KernelRegistry& registry);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_LINALG_KERNELS_H_
