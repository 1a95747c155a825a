// The reduction family's kernels (reductions), added to a registry from one
// function: ops/kernels.cc's table of families calls it.
#ifndef STATIC_RUNTIME_OPS_REDUCTION_KERNELS_H_
#define STATIC_RUNTIME_OPS_REDUCTION_KERNELS_H_

#include "ops/core/registry.h"

namespace static_runtime {

void RegisterReductionKernels(KernelRegistry& registry);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_REDUCTION_KERNELS_H_
