#include "ops/activations/kernels.h"

namespace static_runtime {

// Each kernel file's part, defined there.
void RegisterGeluKernels(KernelRegistry& registry);   // gelu.cc
void RegisterGluKernels(KernelRegistry& registry);    // glu.cc
void RegisterPreluKernels(KernelRegistry& registry);  // prelu.cc

void RegisterActivationKernels(KernelRegistry& registry) {
  RegisterGeluKernels(registry);
  RegisterGluKernels(registry);
  RegisterPreluKernels(registry);
}

}  // namespace static_runtime
