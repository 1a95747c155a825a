#include "ops/reduction/kernels.h"

namespace static_runtime {

// Each kernel file's part, defined there.
void RegisterOutReductionKernels(KernelRegistry& registry);  // out_reduction.cc

void RegisterReductionKernels(KernelRegistry& registry) { RegisterOutReductionKernels(registry); }

}  // namespace static_runtime
