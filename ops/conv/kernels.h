// The conv family's kernels (convolutions (2D, 3D, transposed)), added to a registry from one
// function: ops/kernels.cc's table of families calls it.
#ifndef STATIC_RUNTIME_OPS_CONV_KERNELS_H_
#define STATIC_RUNTIME_OPS_CONV_KERNELS_H_

#include "ops/core/registry.h"

namespace static_runtime {

void RegisterConvKernels(KernelRegistry& registry);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_CONV_KERNELS_H_
