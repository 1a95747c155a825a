// The body of the layer-norm kernels (ops/nn/layer_norm_rows.h), included
// once per ISA by a translation unit compiled with that ISA's flags and
// ATen's CPU_CAPABILITY macros, so at::vec::Vectorized<float> is that ISA's,
// and without floating-point contraction.
//
// Every operation below is one that ATen's kernel does, in ATen's order for
// each row (each multiply, add, divide and square root one IEEE rounding,
// except the fused multiply-adds that Debian's build of the normalization
// has); only several rows go through each step together (RowsMoments,
// ops/nn/row_moments_impl.h), so that their chains of dependent operations
// overlap.
#ifndef STATIC_RUNTIME_OPS_NN_LAYER_NORM_ROWS_IMPL_H_
#define STATIC_RUNTIME_OPS_NN_LAYER_NORM_ROWS_IMPL_H_

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "ATen/cpu/vec/vec.h"
#include "ops/nn/layer_norm_rows.h"
#include "ops/nn/row_moments_impl.h"

namespace static_runtime {
namespace ops {

// Defined in layer_norm_rows_avx2.cc and layer_norm_rows_avx512.cc (the
// candidates of LayerNormRowsForThisCpu): ATen's AVX2 kernel on AVX2
// vectors and on AVX-512 registers.
LayerNormRowsKernel LayerNormRowsAvx2();
LayerNormRowsKernel LayerNormRowsAvx2OrderOnAvx512();

namespace CPU_CAPABILITY {

// ATen's normalization of one row: y = (x * rstd + (-rstd * mean)) * gamma
// + beta, each multiply-add fused (as GCC contracts ATen's source), on
// vec::map3's vectors and partial vector (gamma 1 and beta 0 where absent,
// as ATen's scalar loop has them: fma(t, 1, 0) is t + 0).
inline void NormalizeRow(const float* x, const float* gamma, const float* beta, float* y, int64_t n,
                         float mean, float rstd) {
  const Vec scale(rstd);
  const Vec bias(-rstd * mean);
  const Vec one(1.f);
  const Vec zero(0.f);
  constexpr int64_t kLanes = Vec::size();
  int64_t i = 0;
  for (; i < n - (n % kLanes); i += kLanes) {
    const Vec g = gamma != nullptr ? Vec::loadu(gamma + i) : one;
    const Vec b = beta != nullptr ? Vec::loadu(beta + i) : zero;
    at::vec::fmadd(at::vec::fmadd(Vec::loadu(x + i), scale, bias), g, b).store(y + i);
  }
  if (i < n) {
    const int64_t rest = n - i;
    const Vec g = gamma != nullptr ? Vec::loadu(gamma + i, rest) : one;
    const Vec b = beta != nullptr ? Vec::loadu(beta + i, rest) : zero;
    at::vec::fmadd(at::vec::fmadd(Vec::loadu(x + i, rest), scale, bias), g, b).store(y + i, rest);
  }
}

// The `count` rows from `first` (at most kRegs registers' worth; the
// registers of missing rows repeat the last row, computed and not written):
// the moments together, then each row normalized.
template <typename Lanes, int kRegs>
void NormalizeRows(const LayerNormRows& a, int64_t first, int64_t count) {
  constexpr int kRows = kRegs * Lanes::kPartsPerReg;
  const float* rows[kRows];
  for (int r = 0; r < kRows; ++r) rows[r] = a.x + (first + std::min<int64_t>(r, count - 1)) * a.n;
  float mean[kRows];
  float variance[kRows];
  RowsMoments<Lanes, kRegs>(rows, a.n, mean, variance);
  for (int64_t r = 0; r < count; ++r) {
    const float rstd = 1.f / std::sqrt(variance[r] + a.eps);
    NormalizeRow(rows[r], a.gamma, a.beta, a.y + (first + r) * a.n, a.n, mean[r], rstd);
    a.mean[first + r] = mean[r];
    a.rstd[first + r] = rstd;
  }
}

// Rows [first, last) in groups of kRegs registers' rows, the rest in groups
// of half as many and so on; a last row alone where a register holds two.
template <typename Lanes, int kRegs = kMaxRegs>
void LayerNormRowsImpl(const LayerNormRows& a, int64_t first, int64_t last) {
  constexpr int64_t kRows = kRegs * Lanes::kPartsPerReg;
  int64_t row = first;
  for (; row + kRows <= last; row += kRows) NormalizeRows<Lanes, kRegs>(a, row, kRows);
  if constexpr (kRegs > 1) {
    LayerNormRowsImpl<Lanes, kRegs / 2>(a, row, last);
  } else if (row < last) {
    NormalizeRows<Lanes, 1>(a, row, last - row);
  }
}

}  // namespace CPU_CAPABILITY
}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_NN_LAYER_NORM_ROWS_IMPL_H_
