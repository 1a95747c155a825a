#include "ops/attention/kernels.h"

namespace static_runtime {

// Each kernel file's part, defined there.
void RegisterMultiHeadAttentionKernels(KernelRegistry& registry);  // multi_head_attention.cc
void RegisterNestedPaddingKernels(KernelRegistry& registry);       // nested_padding.cc
void RegisterTransformerEncoderLayerKernels(
    KernelRegistry& registry);  // transformer_encoder_layer.cc

void RegisterAttentionKernels(KernelRegistry& registry) {
  RegisterMultiHeadAttentionKernels(registry);
  RegisterNestedPaddingKernels(registry);
  RegisterTransformerEncoderLayerKernels(registry);
}

}  // namespace static_runtime
