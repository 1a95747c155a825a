// Two orders in which OpenBLAS's sgemm sums the product ATen's
// addmm(b, x, W^T) asks of it, computed here on W packed once instead of on
// every call:
//
// - Chain (its level-3 driver and the kernels of its AVX-512 cores,
//   SkylakeX and Cooperlake, and of its AVX2 ones, Haswell and Zen): each
//   result is ((init + c_1) + c_2) + ..., where init is the bias (+0
//   without one) and c_b the chain of fused multiply-adds over the b-th
//   block of k, in the order of k, from +0. The driver cuts k into blocks
//   of GEMM_Q (a parameter of the core: 320 for its Cooperlake kernels, 448
//   for its SkylakeX ones here) and halves a rest between one and two
//   blocks: rounded up to 16 by its one-thread driver, to an integer by its
//   threaded one (KBlocks). The Haswell kernels keep two chains in the rows
//   of their full 4-row tiles ("paired rows"): c_b = e_b + o_b, e_b the
//   chain over the block's even k (counted from its start), o_b over its
//   odd k.
// - LaneTree (the AVX-512 cores' small-matrix "TN" kernel): sixteen partial
//   sums, lane l the fused multiply-add chain over k = l, l + 16, ... from
//   +0 (a last partial group of k adds products of zeros), added by one of
//   two trees, then the bias added once (without a bias, the tree's sum
//   alone). The tree: results whose output index is below n rounded down to
//   4, or whose row is below rows rounded down to 4, pair lanes as
//   (0+1)+(2+3) within each group of four lanes and then the groups as
//   (G0+G1)+(G2+G3); the others as the compiler's _mm512_reduce_add_ps does:
//   lanes l and l+8, then l and l+4, then l and l+2, then the last two.
//
// Nothing here decides which order, if either, is BLAS's for a shape: that
// is proved by comparing with BLAS (ops/blas_replica/replicated_linear.h).
// Contract: the CPU runs the order (ChainAvailable, LaneTreeAvailable); x
// rows are k contiguous floats, y is [rows, n] row-major and overlaps
// neither x nor the weights.
#ifndef STATIC_RUNTIME_OPS_BLAS_REPLICA_SGEMM_ORDERS_H_
#define STATIC_RUNTIME_OPS_BLAS_REPLICA_SGEMM_ORDERS_H_

#include <cstdint>
#include <vector>

namespace static_runtime {
namespace ops {
namespace blas_replica {

// Whether this CPU runs ChainProduct (AVX2 and FMA).
bool ChainAvailable();

// Whether this CPU runs LaneTreeProduct (AVX-512F).
bool LaneTreeAvailable();

// W^T in panels of 16 outputs for ChainProduct: panel p holds, for each k in
// order, W[16p + l][k] for l = 0..15 (zeros past n). `weight`: [n, k] row-major.
std::vector<float> PackPanels(const float* weight, int64_t n, int64_t k);

// The end of each block of k the level-3 driver makes with GEMM_Q `q`.
std::vector<int64_t> KBlocks(int64_t k, int64_t q, bool threaded);

// y = bias + x W^T in the Chain order, k cut at `block_ends` (KBlocks), the
// rows below `paired_rows` (a multiple of 4, at most rows) paired.
// `panels`: PackPanels(W); `bias`: n floats or nullptr.
void ChainProduct(const std::vector<int64_t>& block_ends, int64_t paired_rows, const float* panels,
                  const float* bias, const float* x, int64_t x_row_stride, int64_t rows, int64_t n,
                  int64_t k, float* y);

// y = bias + x W^T in the LaneTree order. `weight`: [n, k] row-major.
void LaneTreeProduct(const float* weight, const float* bias, const float* x, int64_t x_row_stride,
                     int64_t rows, int64_t n, int64_t k, float* y);

}  // namespace blas_replica
}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_BLAS_REPLICA_SGEMM_ORDERS_H_
