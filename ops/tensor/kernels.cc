#include "ops/tensor/kernels.h"

namespace static_runtime {

// Each kernel file's part, defined there.
void RegisterNativeRewritesKernels(KernelRegistry& registry);   // native_rewrites.cc
void RegisterNativeViewsKernels(KernelRegistry& registry);      // native_views.cc
void RegisterOutCopiesKernels(KernelRegistry& registry);        // out_copies.cc
void RegisterOutDataKernels(KernelRegistry& registry);          // out_data.cc
void RegisterOutEmbeddingBagKernels(KernelRegistry& registry);  // out_embedding_bag.cc

void RegisterTensorKernels(KernelRegistry& registry) {
  RegisterNativeRewritesKernels(registry);
  RegisterNativeViewsKernels(registry);
  RegisterOutCopiesKernels(registry);
  RegisterOutDataKernels(registry);
  RegisterOutEmbeddingBagKernels(registry);
}

}  // namespace static_runtime
