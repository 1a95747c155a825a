#include "ops/kernels.h"

#include "ir/operators/operators.h"
#include "ops/activations/kernels.h"
#include "ops/attention/kernels.h"
#include "ops/conv/kernels.h"
#include "ops/elementwise/kernels.h"
#include "ops/linalg/kernels.h"
#include "ops/nn/kernels.h"
#include "ops/prim/kernels.h"
#include "ops/quantized/kernels.h"
#include "ops/reduction/kernels.h"
#include "ops/rnn/kernels.h"
#include "ops/tensor/kernels.h"

namespace static_runtime {

absl::Span<const KernelFamily> KernelFamilies() {
  static constexpr KernelFamily kFamilies[] = {
      {"activations", RegisterActivationKernels},
      {"attention", RegisterAttentionKernels},
      {"conv", RegisterConvKernels},
      {"elementwise", RegisterElementwiseKernels},
      {"linalg", RegisterLinalgKernels},
      {"nn", RegisterNnKernels},
      {"prim", RegisterPrimKernels},
      {"quantized", RegisterQuantizedKernels},
      {"reduction", RegisterReductionKernels},
      {"rnn", RegisterRnnKernels},
      {"tensor", RegisterTensorKernels},
  };
  return kFamilies;
}

void AddBuiltinKernels(KernelRegistry& registry) {
  ops::EnsureOperatorsRegistered();
  for (const KernelFamily& family : KernelFamilies()) family.add_kernels(registry);
}

KernelRegistry& GlobalKernels() {
  static KernelRegistry* const registry = [] {
    auto* built = new KernelRegistry();
    AddBuiltinKernels(*built);
    return built;
  }();
  return *registry;
}

}  // namespace static_runtime
