#include "ops/linalg/streamed_linear.h"

#include <algorithm>

#include "ATen/Parallel.h"
#include "ops/core/cpu_isa.h"
#include "ops/linalg/streamed_linear_loops.h"

namespace static_runtime {
namespace ops {
namespace {

int64_t Padded(int64_t n) { return (n + kStreamedPanel - 1) / kStreamedPanel * kStreamedPanel; }

}  // namespace

bool StreamedLinear::Available() { return CpuRunsAvx2(); }

bool StreamedLinear::Pays(int64_t rows, int64_t weights) {
  // Up to the rows of one pass: more passes read the weight again, and the
  // AVX2 loops' multiply-adds at 16 rows took as long as the weight's
  // reading (1024 x 512 on 4 x 4 pixels: 10% slower than oneDNN).
  return rows <= (CpuRunsAvx512() ? kStreamedAvx512Rows : kStreamedAvx2Rows) &&
         weights >= 256 * 1024;
}

StreamedLinear::StreamedLinear(const float* weight, const float* bias, int64_t n, int64_t k,
                               Loops loops)
    : n_(n),
      k_(k),
      avx512_(loops == Loops::kWidest && CpuRunsAvx512()),
      panels_(Padded(n) * k, 0.f),
      padded_bias_(Padded(n), 0.f),
      charge_((panels_.size() + padded_bias_.size()) * sizeof(float)) {
  for (int64_t j = 0; j < n; ++j) {
    float* panel = panels_.data() + j / kStreamedPanel * kStreamedPanel * k + j % kStreamedPanel;
    for (int64_t i = 0; i < k; ++i) panel[i * kStreamedPanel] = weight[j * k + i];
    if (bias != nullptr) padded_bias_[j] = bias[j];
  }
}

template <typename PassRows>
void StreamedLinear::RunRows(int64_t rows, const PassRows& pass_rows, float* y,
                             int64_t y_row_stride) const {
  const int64_t pass = avx512_ ? kStreamedAvx512Rows : kStreamedAvx2Rows;
  // Panels [first, last) for every row: each output's sum is the same
  // whichever thread computes it.
  const auto panels = [&](int64_t first, int64_t last) {
    const int64_t column = first * kStreamedPanel;
    const int64_t outputs = std::min(n_, last * kStreamedPanel) - column;
    const float* buffer[kStreamedAvx512Rows];
    for (int64_t r = 0; r < rows; r += pass) {
      const int64_t tile = std::min(pass, rows - r);
      (avx512_ ? StreamedRowsAvx512 : StreamedRowsAvx2)(
          panels_.data() + column * k_, padded_bias_.data() + column, outputs, k_,
          pass_rows(r, tile, buffer), tile, y + r * y_row_stride + column, y_row_stride);
    }
  };
  const int64_t count = Padded(n_) / kStreamedPanel;
  if (static_cast<int64_t>(panels_.size()) < kSplitWeights || at::get_num_threads() == 1) {
    panels(0, count);
    return;
  }
  // Each thread's share of the weight at least half the smallest split.
  const int64_t grain = (kSplitWeights / 2 + kStreamedPanel * k_ - 1) / (kStreamedPanel * k_);
  at::parallel_for(0, count, grain, panels);
}

void StreamedLinear::Run(const float* const* x_rows, int64_t rows, float* y,
                         int64_t y_row_stride) const {
  RunRows(
      rows,
      [x_rows](int64_t first, int64_t /*tile*/, const float** /*buffer*/) {
        return x_rows + first;
      },
      y, y_row_stride);
}

void StreamedLinear::Run(const float* x, int64_t rows, float* y) const {
  // One split for all the rows (a parallel region, not one a pass).
  RunRows(
      rows,
      [this, x](int64_t first, int64_t tile, const float** buffer) {
        for (int64_t i = 0; i < tile; ++i) buffer[i] = x + (first + i) * k_;
        return static_cast<const float* const*>(buffer);
      },
      y, n_);
}

}  // namespace ops
}  // namespace static_runtime
