// Test helpers for kernels that compute in ATen's order
// (ops/nn/aten_order_kernels.h): bitwise comparison with ATen's result and
// the candidate a CPU should choose.
#ifndef STATIC_RUNTIME_OPS_NN_ATEN_ORDER_TEST_SUPPORT_H_
#define STATIC_RUNTIME_OPS_NN_ATEN_ORDER_TEST_SUPPORT_H_

#include <cmath>
#include <cstring>
#include <string>

#include "ATen/ATen.h"
#include "ops/nn/aten_order_kernels.h"

namespace static_runtime {
namespace ops {

// Whether float tensors `ours` and `aten` (the same shape) hold the same
// bits, NaN where either has NaN.
inline bool SameBitsOrBothNan(const at::Tensor& ours, const at::Tensor& aten) {
  const at::Tensor a_values = ours.contiguous();
  const at::Tensor b_values = aten.contiguous();
  const float* a = a_values.data_ptr<float>();
  const float* b = b_values.data_ptr<float>();
  for (int64_t i = 0; i < a_values.numel(); ++i) {
    if (std::isnan(a[i]) && std::isnan(b[i])) continue;
    if (std::memcmp(&a[i], &b[i], sizeof(float)) != 0) return false;
  }
  return true;
}

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
