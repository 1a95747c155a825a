#include "ops/linalg/kernels.h"

namespace static_runtime {

// Each kernel file's part, defined there.
void RegisterOnednnLinearKernels(KernelRegistry& registry);  // onednn_linear.cc
void RegisterOutLinalgKernels(KernelRegistry& registry);     // out_linalg.cc

void RegisterLinalgKernels(KernelRegistry& registry) {
  RegisterOnednnLinearKernels(registry);
  RegisterOutLinalgKernels(registry);
}

}  // namespace static_runtime
