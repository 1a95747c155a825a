// Kernels that compute what one of ATen's CPU kernels computes, bit for bit,
// in ATen's order of operations, compiled once per ISA (ops/core/per_isa.bzl)
// and chosen at first use: a probe compares each candidate the CPU runs with
// ATen's kernel and the first that matches is used (ATen's order depends on
// the vector width of the kernel ATen dispatches to, which is not public).
// Used by ops/nn/layer_norm_rows.h, group_norm_rows.h, global_avg_pool.h and
// softmax_rows.h; SameBitsOrBothNan by the batch-norm probe too.
#ifndef STATIC_RUNTIME_OPS_NN_ATEN_ORDER_KERNELS_H_
#define STATIC_RUNTIME_OPS_NN_ATEN_ORDER_KERNELS_H_

#include <cmath>
#include <cstring>
#include <vector>

#include "ATen/core/Tensor.h"
#include "ops/core/cpu_isa.h"

namespace static_runtime {
namespace ops {

// A candidate: `run` (nullptr for none) and its name.
template <typename Fn>
struct AtenOrderKernel {
  Fn run = nullptr;
  const char* name = "none";
};

// Of a kernel in ATen's AVX2 order on AVX-512 registers and on AVX2 ones
// (and, for a kernel whose order depends on the vector width, in ATen's
// AVX-512 order), the candidates this CPU runs, in that order.
template <typename Fn>
std::vector<AtenOrderKernel<Fn>> Avx2OrderCandidates(
    AtenOrderKernel<Fn> on_avx512, AtenOrderKernel<Fn> on_avx2,
    AtenOrderKernel<Fn> in_avx512_order = AtenOrderKernel<Fn>{}) {
  std::vector<AtenOrderKernel<Fn>> candidates;
  if (CpuRunsAvx512()) {
    candidates.push_back(on_avx512);
    if (in_avx512_order.run != nullptr) candidates.push_back(in_avx512_order);
  }
  if (CpuRunsAvx2()) candidates.push_back(on_avx2);
  return candidates;
}

// The first of `candidates` whose run `matches_aten`, or none.
template <typename Fn, typename MatchesAten>
AtenOrderKernel<Fn> FirstMatching(const std::vector<AtenOrderKernel<Fn>>& candidates,
                                  MatchesAten matches_aten) {
  for (const AtenOrderKernel<Fn>& kernel : candidates) {
    if (matches_aten(kernel.run)) return kernel;
  }
  return AtenOrderKernel<Fn>{};
}

// Whether float tensors `ours` and `aten` (the same shape) hold the same
// bits, NaN where either has NaN: how a probe and a test compare a
// candidate's result with ATen's.
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

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_NN_ATEN_ORDER_KERNELS_H_
