// The loops of ops/linalg/streamed_linear.h, one set per ISA (AVX2 with FMA,
// AVX-512F), each in its translation unit compiled for that ISA; both sum
// in the order StreamedLinear documents, so they give the same bits.
// Contract: the CPU runs the ISA; 1 <= rows <= the ISA's rows; `panels` and
// `bias` are StreamedLinear's packing of n outputs over k; x holds `rows`
// row pointers of k floats; y is [rows, n] with rows `y_row_stride` apart.
#ifndef STATIC_RUNTIME_OPS_LINALG_STREAMED_LINEAR_LOOPS_H_
#define STATIC_RUNTIME_OPS_LINALG_STREAMED_LINEAR_LOOPS_H_

#include <cstdint>

namespace static_runtime {
namespace ops {

constexpr int64_t kStreamedPanel = 16;  // outputs a panel: a cache line a step of k

// Rows of one pass over the weight.
constexpr int64_t kStreamedAvx2Rows = 8;
constexpr int64_t kStreamedAvx512Rows = 16;

void StreamedRowsAvx2(const float* panels, const float* bias, int64_t n, int64_t k,
                      const float* const* x, int64_t rows, float* y, int64_t y_row_stride);
void StreamedRowsAvx512(const float* panels, const float* bias, int64_t n, int64_t k,
                        const float* const* x, int64_t rows, float* y, int64_t y_row_stride);

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_LINALG_STREAMED_LINEAR_LOOPS_H_
