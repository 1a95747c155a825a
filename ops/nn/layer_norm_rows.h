// Layer norm over the last dimension of contiguous float32 rows, bit for bit
// as ATen's CPU kernel computes it (at::native_layer_norm, float), faster.
//
// ATen's kernel (layer_norm_kernel.cpp) takes one row after another: its
// moments by utils::RowwiseMoments (Welford's update in vectors over chunks
// of 16 vectors, the chunks merged by a cascade, the values past the last
// vector and then the lanes merged on scalars), rstd = 1 / sqrt(var + eps),
// then y = (x * rstd + (-rstd * mean)) * gamma + beta by vec::map3 (each
// multiply-add fused in Debian's build). Each
// row's moments are a chain of dependent operations: a row of 768 values
// waits about 1000 cycles on the latency of its own adds and multiplies.
// The kernel here does the same operations in the same order for each row,
// on up to eight rows at once, so that their chains overlap.
//
// The order depends on the vector width of the kernel ATen runs: LibTorch
// 1.13 registers its layer-norm kernel for AVX2 (8 lanes) only, so its AVX2
// kernel runs on AVX512 CPUs too, whatever ATen's CPU capability; there the
// kernel here keeps two rows' 8-lane vectors in each AVX-512 register. At
// first use a probe compares each candidate with ATen's kernel on rows of
// lengths whose vector, chunk and cascade splits differ, with and without
// gamma and beta, on special values too, and the first that matches bit for
// bit (NaNs by position) is used; with none (ATen's scalar DEFAULT kernel,
// or another build of LibTorch), ATen's own.
#ifndef STATIC_RUNTIME_OPS_NN_LAYER_NORM_ROWS_H_
#define STATIC_RUNTIME_OPS_NN_LAYER_NORM_ROWS_H_

#include <cstdint>
#include <vector>

#include "ATen/core/Tensor.h"
#include "ops/nn/aten_order_kernels.h"

namespace static_runtime {
namespace ops {

// The operands: rows of `n` floats at `x` (contiguous), their normalization
// into `y` (the same layout; may be `x`), and each row's mean and rstd.
// `gamma` and `beta` (n floats each) may be null: 1 and 0.
struct LayerNormRows {
  const float* x;
  const float* gamma;
  const float* beta;
  float* y;
  float* mean;
  float* rstd;
  int64_t n;
  float eps;
};

// Normalizes rows [first, last).
using LayerNormRowsFn = void (*)(const LayerNormRows& rows, int64_t first, int64_t last);

// A candidate kernel (ops/nn/aten_order_kernels.h).
using LayerNormRowsKernel = AtenOrderKernel<LayerNormRowsFn>;

// The candidates this CPU runs, in order of preference: "avx2 order on
// avx512" (AVX-512 F, BW, VL, DQ), then "avx2" (AVX2, FMA).
std::vector<LayerNormRowsKernel> LayerNormRowsCandidates();

// The first candidate that matches ATen's kernel on this CPU, or none.
const LayerNormRowsKernel& LayerNormRowsForThisCpu();

// LayerNormInto (ops/core/cpu_kernels.h), with the same contract: by the
// kernel above for float where there is one, else by ATen's kernel.
void FastLayerNormInto(const at::Tensor& x, const at::Tensor& gamma, const at::Tensor& beta,
                       int64_t m, int64_t n, double eps, at::Tensor& out, at::Tensor& mean,
                       at::Tensor& rstd);

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_NN_LAYER_NORM_ROWS_H_
