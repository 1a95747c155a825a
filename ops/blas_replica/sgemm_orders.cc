#include "ops/blas_replica/sgemm_orders.h"

#include "ops/blas_replica/chain_avx2.h"
#include "ops/blas_replica/sgemm_orders_avx512.h"
#include "ops/core/cpu_isa.h"

namespace static_runtime {
namespace ops {
namespace blas_replica {
namespace {

constexpr int64_t kLanes = 16;  // a panel's outputs

}  // namespace

bool ChainAvailable() { return CpuRunsAvx2(); }

bool LaneTreeAvailable() { return CpuRunsAvx512(); }

std::vector<float> PackPanels(const float* weight, int64_t n, int64_t k) {
  const int64_t panel_count = (n + kLanes - 1) / kLanes;
  std::vector<float> panels(panel_count * k * kLanes, 0.0f);
  for (int64_t j = 0; j < n; ++j) {
    float* lane = panels.data() + (j / kLanes) * k * kLanes + j % kLanes;
    for (int64_t p = 0; p < k; ++p) lane[p * kLanes] = weight[j * k + p];
  }
  return panels;
}

std::vector<int64_t> KBlocks(int64_t k, int64_t q, bool threaded) {
  constexpr int64_t kUnroll = 16;  // the kernel's rows
  std::vector<int64_t> ends;
  for (int64_t start = 0, length = 0; start < k; start += length) {
    length = k - start;
    if (length >= 2 * q) {
      length = q;
    } else if (length > q) {
      length = threaded ? (length + 1) / 2 : (length / 2 + kUnroll - 1) / kUnroll * kUnroll;
    }
    ends.push_back(start + length);
  }
  return ends;
}

void ChainProduct(const std::vector<int64_t>& block_ends, int64_t paired_rows, const float* panels,
                  const float* bias, const float* x, int64_t x_row_stride, int64_t rows, int64_t n,
                  int64_t k, float* y) {
  if (paired_rows == 0 && LaneTreeAvailable()) {
    ChainProductAvx512(block_ends, panels, bias, x, x_row_stride, rows, n, k, y);
  } else {
    ChainProductAvx2(block_ends, paired_rows, panels, bias, x, x_row_stride, rows, n, k, y);
  }
}

void LaneTreeProduct(const float* weight, const float* bias, const float* x, int64_t x_row_stride,
                     int64_t rows, int64_t n, int64_t k, float* y) {
  LaneTreeProductAvx512(weight, bias, x, x_row_stride, rows, n, k, y);
}

}  // namespace blas_replica
}  // namespace ops
}  // namespace static_runtime
