// The rnn family's kernels (recurrent layers and cells), added to a registry from one
// function: ops/kernels.cc's table of families calls it.
#ifndef STATIC_RUNTIME_OPS_RNN_KERNELS_H_
#define STATIC_RUNTIME_OPS_RNN_KERNELS_H_

#include "ops/core/registry.h"

namespace static_runtime {

void RegisterRnnKernels(KernelRegistry& registry);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_RNN_KERNELS_H_
