#include "ops/elementwise/kernels.h"

namespace static_runtime {

// Each kernel file's part, defined there.
void RegisterNativeInplaceKernels(KernelRegistry& registry);   // native_inplace.cc
void RegisterOutBinaryKernels(KernelRegistry& registry);       // out_binary.cc
void RegisterOutUnaryKernels(KernelRegistry& registry);        // out_unary.cc
void RegisterPointwiseFusedKernels(KernelRegistry& registry);  // pointwise_fused.cc

void RegisterElementwiseKernels(KernelRegistry& registry) {
  RegisterNativeInplaceKernels(registry);
  RegisterOutBinaryKernels(registry);
  RegisterOutUnaryKernels(registry);
  RegisterPointwiseFusedKernels(registry);
}

}  // namespace static_runtime
