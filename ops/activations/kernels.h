// The activations family's kernels (activation functions (GELU, GLU, PReLU)), added to a registry
// from one function: ops/kernels.cc's table of families calls it.
#ifndef STATIC_RUNTIME_OPS_ACTIVATIONS_KERNELS_H_
#define STATIC_RUNTIME_OPS_ACTIVATIONS_KERNELS_H_

#include "ops/core/registry.h"

namespace static_runtime {

void RegisterActivationKernels(KernelRegistry& registry);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_ACTIVATIONS_KERNELS_H_
