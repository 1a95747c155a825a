// Test helpers for kernels that compute in ATen's order
// (ops/nn/aten_order_kernels.h): the candidate a CPU should choose.
#ifndef STATIC_RUNTIME_OPS_NN_ATEN_ORDER_TEST_SUPPORT_H_
#define STATIC_RUNTIME_OPS_NN_ATEN_ORDER_TEST_SUPPORT_H_

#include <string>

#include "ATen/ATen.h"
#include "ops/core/cpu_isa.h"
#include "ops/nn/aten_order_kernels.h"

namespace static_runtime {
namespace ops {

// The candidate of Avx2OrderCandidates that matches a kernel ATen runs in
// its AVX2 order whatever its CPU capability (LibTorch 1.13's layer and
// group norms), as ATen's configuration says: none where ATen runs its
// scalar DEFAULT kernels.
inline std::string ExpectedAvx2OrderKernel() {
  const std::string config = at::show_config();
  const bool aten_vectors = config.find("CPU capability usage: AVX2\n") != std::string::npos ||
                            config.find("CPU capability usage: AVX512\n") != std::string::npos;
  if (!aten_vectors) return "none";
  if (CpuRunsAvx512()) return "avx2 order on avx512";
  return CpuRunsAvx2() ? "avx2" : "none";
}

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_NN_ATEN_ORDER_TEST_SUPPORT_H_
