// sgemm_orders.h's Chain (unpaired) and LaneTree orders in AVX-512 loops:
// sixteen results per vector, the sums exactly as sgemm_orders.h describes.
// Contract: the CPU has AVX-512F; the arguments are ChainProduct's (with no
// paired rows) and LaneTreeProduct's.
#ifndef STATIC_RUNTIME_OPS_BLAS_REPLICA_SGEMM_ORDERS_AVX512_H_
#define STATIC_RUNTIME_OPS_BLAS_REPLICA_SGEMM_ORDERS_AVX512_H_

#include <cstdint>
#include <vector>

namespace static_runtime {
namespace ops {
namespace blas_replica {

void ChainProductAvx512(const std::vector<int64_t>& block_ends, const float* panels,
                        const float* bias, const float* x, int64_t x_row_stride, int64_t rows,
                        int64_t n, int64_t k, float* y);

void LaneTreeProductAvx512(const float* weight, const float* bias, const float* x,
                           int64_t x_row_stride, int64_t rows, int64_t n, int64_t k, float* y);

}  // namespace blas_replica
}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_BLAS_REPLICA_SGEMM_ORDERS_AVX512_H_
