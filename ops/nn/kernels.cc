#include "ops/nn/kernels.h"

namespace static_runtime {

// Each kernel file's part, defined there.
void RegisterGroupNormKernels(KernelRegistry& registry);     // group_norm.cc
void RegisterInstanceNormKernels(KernelRegistry& registry);  // instance_norm.cc
void RegisterOutAvgPoolKernels(KernelRegistry& registry);    // out_avg_pool.cc
void RegisterOutBatchNormKernels(KernelRegistry& registry);  // out_batch_norm.cc
void RegisterOutMaxPoolKernels(KernelRegistry& registry);    // out_max_pool.cc
void RegisterOutNnKernels(KernelRegistry& registry);         // out_nn.cc
void RegisterUpsampleKernels(KernelRegistry& registry);      // upsample.cc

void RegisterNnKernels(KernelRegistry& registry) {
  RegisterGroupNormKernels(registry);
  RegisterInstanceNormKernels(registry);
  RegisterOutAvgPoolKernels(registry);
  RegisterOutBatchNormKernels(registry);
  RegisterOutMaxPoolKernels(registry);
  RegisterOutNnKernels(registry);
  RegisterUpsampleKernels(registry);
}

}  // namespace static_runtime
