// The body of the group-norm kernels (ops/nn/group_norm_rows.h), included
// once per ISA by a translation unit compiled with that ISA's flags and
// ATen's CPU_CAPABILITY macros, so at::vec::Vectorized<float> is that ISA's,
// and without floating-point contraction: every operation is one ATen's
// kernel does, in its order (the fused multiply-add of the normalization
// where Debian's build has it; the bias -scale * mean + beta is rounded
// twice).
#ifndef STATIC_RUNTIME_OPS_NN_GROUP_NORM_ROWS_IMPL_H_
#define STATIC_RUNTIME_OPS_NN_GROUP_NORM_ROWS_IMPL_H_

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "ATen/cpu/vec/vec.h"
#include "ops/nn/group_norm_rows.h"
#include "ops/nn/row_moments_impl.h"

namespace static_runtime {
namespace ops {

// Defined in group_norm_rows_avx2.cc and group_norm_rows_avx512.cc (the
// candidates of GroupNormRowsForThisCpu): ATen's AVX2 kernel on AVX2
// vectors and on AVX-512 registers.
GroupNormRowsKernel GroupNormRowsAvx2();
GroupNormRowsKernel GroupNormRowsAvx2OrderOnAvx512();

namespace CPU_CAPABILITY {

// y = fma(x, scale, bias) over n values (ATen's scale * x + bias, fused).
inline void ScaleShift(const float* x, float* y, int64_t n, float scale, float bias) {
  const Vec scale_vec(scale);
  const Vec bias_vec(bias);
  constexpr int64_t kLanes = Vec::size();
  int64_t i = 0;
  for (; i < n - (n % kLanes); i += kLanes) {
    at::vec::fmadd(Vec::loadu(x + i), scale_vec, bias_vec).store(y + i);
  }
  if (i < n) {
    at::vec::fmadd(Vec::loadu(x + i, n - i), scale_vec, bias_vec).store(y + i, n - i);
  }
}

// y = (x - mean) * rstd over n values.
inline void Standardize(const float* x, float* y, int64_t n, float mean, float rstd) {
  const Vec mean_vec(mean);
  const Vec rstd_vec(rstd);
  constexpr int64_t kLanes = Vec::size();
  int64_t i = 0;
  for (; i < n - (n % kLanes); i += kLanes) {
    ((Vec::loadu(x + i) - mean_vec) * rstd_vec).store(y + i);
  }
  if (i < n) ((Vec::loadu(x + i, n - i) - mean_vec) * rstd_vec).store(y + i, n - i);
}

// Rows [first, last), one after another, each row's chunks kMaxRegs
// registers' worth at a time.
template <typename Lanes>
void GroupNormRowsImpl(const GroupNormRows& a, int64_t first, int64_t last) {
  const int64_t row_size = a.channels_per_group * a.spatial;
  for (int64_t i = first; i < last; ++i) {
    const float* x = a.x + i * row_size;
    float* y = a.y + i * row_size;
    float mean = 0;
    float variance = 0;
    LongRowMoments<Lanes, kMaxRegs>(x, row_size, &mean, &variance);
    const float rstd = 1.f / std::sqrt(std::max(variance, 0.f) + a.eps);
    if (a.gamma == nullptr && a.beta == nullptr) {
      Standardize(x, y, row_size, mean, rstd);
    } else {
      const int64_t group = i % a.groups;
      for (int64_t j = 0; j < a.channels_per_group; ++j) {
        const int64_t c = group * a.channels_per_group + j;
        const float scale = rstd * (a.gamma != nullptr ? a.gamma[c] : 1.f);
        const float bias = -scale * mean + (a.beta != nullptr ? a.beta[c] : 0.f);
        ScaleShift(x + j * a.spatial, y + j * a.spatial, a.spatial, scale, bias);
      }
    }
    a.mean[i] = mean;
    a.rstd[i] = rstd;
  }
}

}  // namespace CPU_CAPABILITY
}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_NN_GROUP_NORM_ROWS_IMPL_H_
