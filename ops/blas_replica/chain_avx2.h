// sgemm_orders.h's Chain order in AVX2 loops, for CPUs without AVX-512 (and
// for its paired rows on every CPU): OpenBLAS's Haswell sgemm kernels (its
// "Haswell" and "Zen" cores) sum each result in one chain of fused
// multiply-adds over a block of k, except in the rows of its full 4-row
// tiles, where they keep two (even k and odd k) and add them at the block's
// end. Eight results per vector; each result is computed exactly as
// sgemm_orders.h describes, whatever the vector width.
// Contract: the CPU has AVX2 and FMA; the arguments are ChainProduct's.
#ifndef STATIC_RUNTIME_OPS_BLAS_REPLICA_CHAIN_AVX2_H_
#define STATIC_RUNTIME_OPS_BLAS_REPLICA_CHAIN_AVX2_H_

#include <cstdint>
#include <vector>

namespace static_runtime {
namespace ops {
namespace blas_replica {

void ChainProductAvx2(const std::vector<int64_t>& block_ends, int64_t paired_rows,
                      const float* panels, const float* bias, const float* x, int64_t x_row_stride,
                      int64_t rows, int64_t n, int64_t k, float* y);

}  // namespace blas_replica
}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_BLAS_REPLICA_CHAIN_AVX2_H_
