// Group norm over contiguous float32 input, bit for bit as ATen's CPU kernel
// computes it (at::native_group_norm, float, contiguous), faster on long
// groups.
//
// ATen's kernel (group_norm_kernel.cpp) takes one (sample, group) row of
// channels-per-group x spatial values after another: its moments by
// utils::RowwiseMoments, rstd = 1 / sqrt(max(var, 0) + eps), then per
// channel c of the group y = scale * x + bias with scale = rstd * gamma[c]
// and bias = -scale * mean + beta[c] (the first multiply-add fused in
// Debian's build, the second not), or y = (x - mean) * rstd without gamma
// and beta. A row's moments
// are one chain of dependent adds and multiplies (ConvTasNet's global layer
// norm, GroupNorm(1, C), makes each sample one row of C x T values); here
// the row's chunks of 16 vectors go through Welford's update several at
// once, each merged into the cascade in ATen's order
// (ops/nn/row_moments_impl.h).
//
// As for layer norm (ops/nn/layer_norm_rows.h), LibTorch 1.13 registers its
// group-norm kernel for AVX2 only; at first use a probe compares each
// candidate with ATen's kernel, with and without gamma and beta, and the
// first that matches bit for bit (NaNs by position) is used; with none,
// ATen's own.
#ifndef STATIC_RUNTIME_OPS_NN_GROUP_NORM_ROWS_H_
#define STATIC_RUNTIME_OPS_NN_GROUP_NORM_ROWS_H_

#include <cstdint>
#include <vector>

#include "ATen/core/Tensor.h"
#include "ops/nn/aten_order_kernels.h"

namespace static_runtime {
namespace ops {

// The operands: `x` (contiguous [N, C, spatial...]) normalized into `y` (the
// same layout; may be `x`) over rows of channels_per_group x spatial values,
// row i being sample i / groups, group i % groups; each row's mean and
// rstd. `gamma` and `beta` (C floats each) may be null: 1 and 0.
struct GroupNormRows {
  const float* x;
  const float* gamma;
  const float* beta;
  float* y;
  float* mean;
  float* rstd;
  int64_t channels_per_group;
  int64_t spatial;
  int64_t groups;
  float eps;
};

// Normalizes rows [first, last).
using GroupNormRowsFn = void (*)(const GroupNormRows& rows, int64_t first, int64_t last);

// A candidate kernel (ops/nn/aten_order_kernels.h).
using GroupNormRowsKernel = AtenOrderKernel<GroupNormRowsFn>;

// The candidates this CPU runs, in order of preference: "avx2 order on
// avx512" (AVX-512 F, BW, VL, DQ), then "avx2" (AVX2, FMA).
std::vector<GroupNormRowsKernel> GroupNormRowsCandidates();

// The first candidate that matches ATen's kernel on this CPU, or none.
const GroupNormRowsKernel& GroupNormRowsForThisCpu();

// ATen's group-norm kernel (at::native::GroupNormKernel) on `x` (contiguous,
// [N, C, spatial...], float or double) into `out` (same shape, contiguous),
// with per-(sample, group) `mean` and `rstd` ([N, groups]): by the kernel
// above for float where there is one, else by ATen's.
void FastGroupNormInto(const at::Tensor& x, const at::Tensor& gamma, const at::Tensor& beta,
                       int64_t n, int64_t channels, int64_t spatial, int64_t groups, double eps,
                       at::Tensor& out, at::Tensor& mean, at::Tensor& rstd);

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_NN_GROUP_NORM_ROWS_H_
