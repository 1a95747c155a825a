// C = A B for one small float32 matrix product, each result the chain
// (((+0 + a_0 b_0) + a_1 b_1) + ...) + a_{k-1} b_{k-1}: one fused multiply-add
// per product, in the order of k, from +0 (so a zero result is +0). That
// is the arithmetic of OpenBLAS's sgemm on this CPU for the shapes
// ops/linalg/batched_gemm.cc gives it (checked bit for bit against at::bmm by
// //ops/linalg:batched_gemm_test), without sgemm's per-call cost: OpenBLAS takes a
// process-wide lock for its packing buffers on every call, which two threads
// multiplying small matrices contend for.
#ifndef STATIC_RUNTIME_OPS_LINALG_FMA_CHAIN_MATMUL_H_
#define STATIC_RUNTIME_OPS_LINALG_FMA_CHAIN_MATMUL_H_

#include <cstdint>

namespace static_runtime {
namespace ops {

// Whether this CPU runs the loop (AVX2 and FMA).
bool FmaChainMatmulAvailable();

// A strided [rows, inner] operand: element (r, c) at data[r * row_stride +
// c * col_stride].
struct StridedMatrix {
  const float* data;
  int64_t row_stride;
  int64_t col_stride;
};

// `c`: [rows, cols], contiguous, not overlapping a or b.
void FmaChainMatmul(StridedMatrix a, StridedMatrix b, int64_t rows, int64_t inner, int64_t cols,
                    float* c);

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_LINALG_FMA_CHAIN_MATMUL_H_
