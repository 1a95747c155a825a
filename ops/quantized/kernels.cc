#include "ops/quantized/kernels.h"

namespace static_runtime {

// Each kernel file's part, defined there.
void RegisterDynamicLinearKernels(KernelRegistry& registry);  // dynamic_linear_kernels.cc
void RegisterEmbeddingBagKernels(KernelRegistry& registry);   // embedding_bag_kernels.cc
void RegisterLibtorchKernels(KernelRegistry& registry);       // libtorch_kernels.cc

void RegisterQuantizedKernels(KernelRegistry& registry) {
  RegisterDynamicLinearKernels(registry);
  RegisterEmbeddingBagKernels(registry);
  RegisterLibtorchKernels(registry);
}

}  // namespace static_runtime
