// aten::bmm for float and double when ATen 1.13 (built without MKL, as
// Debian's is) multiplies batch by batch: k * rows * cols >= 400, one
// addmm per batch matrix, each a BLAS gemm. This makes the very same gemm
// calls (the operand layouts and leading dimensions ATen's addmm chooses,
// then its normalization of degenerate dimensions) straight from the
// tensors' pointers, without ATen's per-batch selects, checks and
// dispatches: the same bits. For a DLRM's interaction (16 products of
// 5 x 16 by 16 x 5) that is most of the op's time.
//
// Where the product is short (k < 32, float), the gemm's arithmetic is one
// chain of fused multiply-adds per result (ops/linalg/fma_chain_matmul.h), and a
// thread's first plan of each gemm shape checks that sgemm gives exactly
// that chain's bits (on sample operands with -0, products that cancel and
// random values), the plan runs the chain itself: no call into BLAS, whose
// sgemm takes a process-wide lock on every call (two threads multiplying
// small matrices wait on each other there).
//
// BmmPlan: how to compute bmm(batch1, batch2) into a new contiguous
// [batch, rows, cols] result this way, or nullopt when ATen would do
// something else (fewer than 400 multiply-adds per matrix: its own loop;
// an operand it would copy first; a dtype other than float and double; an
// empty product; BLAS's gemm not in the process) or reject the arguments.
// With `accumulate`, the products are added to what the result holds, as
// baddbmm(self, batch1, batch2) with beta and alpha 1 does after copying
// self into its result (ATen's gemm calls with beta 1; the chain's sum
// added to each value, where sgemm's bits are that).
// BmmInto: runs the plan into `out` (contiguous, of that size and dtype).
#ifndef STATIC_RUNTIME_OPS_LINALG_BATCHED_GEMM_H_
#define STATIC_RUNTIME_OPS_LINALG_BATCHED_GEMM_H_

#include <cstdint>
#include <optional>

#include "ATen/ATen.h"

namespace static_runtime {

struct BmmPlan {
  bool swap_operands = false;  // ATen's transpose_c: C^T = B^T A^T
  char transpose_a = 'n', transpose_b = 'n';
  int m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldc = 0;
  bool fma_chain = false;   // computed by ops::FmaChainMatmul
  bool accumulate = false;  // gemm's beta 1: added to the result's values
};

std::optional<BmmPlan> PlanBmm(const at::Tensor& batch1, const at::Tensor& batch2,
                               bool accumulate = false);
void BmmInto(const BmmPlan& plan, const at::Tensor& batch1, const at::Tensor& batch2,
             at::Tensor& out);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_LINALG_BATCHED_GEMM_H_
