// Softmax over the last dimension of contiguous float32 rows, bit for bit as
// ATen's CPU kernel computes it (at::softmax(x, -1) on a contiguous float
// tensor), faster where ATen's dispatch runs narrower vectors than the CPU
// has.
//
// ATen's kernel (softmax_lastdim_kernel, vec::reduce_all and vec::map on
// at::vec::Vectorized<float>) does, per row of n values:
//   max = the row's maximum (NaN, all ones, when the row has a NaN);
//   e[i] = exp(x[i] - max) by Sleef's vector exp;
//   sum = the e's summed in one vector accumulator (one whole vector after
//         another, then the lanes of the partial vector at the end), its
//         lanes then folded by a fixed tree; under one vector, left to right;
//   out[i] = e[i] * (1 / sum).
// Only the sum's order depends on the vector width. Debian's LibTorch runs
// its AVX2 kernels even on AVX-512 CPUs, so there the kernel here computes
// the exps on 16 lanes (Sleef's 16-lane exp equals its 8-lane one on every
// float) and keeps the 8-lane sum order.
//
// Which width ATen runs is not public: at first use a probe compares the
// kernel with ATen's on rows whose lengths split differently at 8 and 16
// lanes, and on special values (infinities, NaN, huge and tiny numbers);
// the kernel is used only where it matches bit for bit (NaNs by position).
#ifndef STATIC_RUNTIME_OPS_NN_SOFTMAX_ROWS_H_
#define STATIC_RUNTIME_OPS_NN_SOFTMAX_ROWS_H_

#include <cstdint>

#include "ATen/core/Tensor.h"

namespace static_runtime {
namespace ops {

// Softmax of `rows` rows of `n` values at `in` into `out` (the same layout;
// may be `in`), on the intra-op threads.
using SoftmaxRowsFn = void (*)(const float* in, float* out, int64_t rows, int64_t n);

// The faster kernel where it matches ATen's on this CPU, or nullptr: then
// ATen's own kernel is the fastest exact one.
SoftmaxRowsFn SoftmaxRowsForThisCpu();

// ATen's softmax over the last dimension of `x` (contiguous, float or
// double) into `out` (contiguous, `x`'s shape and dtype; may be `x`): by the
// kernel above for float where there is one, else by ATen's kernel
// (SoftmaxLastDimInto, ops/core/cpu_kernels.h).
void FastSoftmaxLastDimInto(const at::Tensor& x, const at::Tensor& out);

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_NN_SOFTMAX_ROWS_H_
