// y = x W^T + b for a few rows and a weight too large for the caches (the
// 1 x 1 convolutions of a CNN's last stages at batch 1, where a map of 2 x 2
// or 4 x 4 pixels meets 1024 x 2048 weights; a classifier's linear layer),
// where the product's time is reading the weight from memory. The weight is
// packed once into panels of 16 outputs, each panel k rows of 16 floats, one
// after another: the whole weight is one sequential stream, read once a call
// for up to 16 rows (AVX-512 loops) or 8 (AVX2); more rows take more passes,
// each reading the whole weight again (Pays keeps to one pass). oneDNN's
// kernels read such weights at 5.6-7.8 GB/s here, where one core's
// sequential reading reaches 9.5-10.
// Each result is (((x_0 w_0 + x_1 w_1) + ...) + x_{k-1} w_{k-1}) + b: one
// fused multiply-add per product in the order of k, then the bias; the same
// for any number of rows. Another order than ATen's: within the bound
// linear_fused and conv2d_fused declare (a sum of k products).
// Large weights are split by panels across ATen's intra-op threads
// (kSplitWeights), each output summed as above by one thread.
// Contract: CPUs with AVX2 and FMA (Available); each row of x is k floats
// (given by a pointer each: a convolution's pixels need not be evenly
// spaced); y is [rows, n] with rows `y_row_stride` apart and overlaps
// neither x nor the weight.
#ifndef STATIC_RUNTIME_OPS_LINALG_STREAMED_LINEAR_H_
#define STATIC_RUNTIME_OPS_LINALG_STREAMED_LINEAR_H_

#include <cstdint>
#include <vector>

#include "execution/kernel_caches.h"

namespace static_runtime {
namespace ops {

class StreamedLinear {
 public:
  // Whether this CPU runs the loops (AVX2 and FMA).
  static bool Available();
  // Whether it pays over oneDNN for `rows` rows by a weight of `weights`
  // floats: few rows (their products then take less time than the weight's
  // reading: up to 16 on CPUs with AVX-512, 8 on the others) and a weight
  // the caches would not keep from call to call (1 MiB or more).
  static bool Pays(int64_t rows, int64_t weights);

  // The loops Run takes: the widest this CPU runs, or the AVX2 ones (for
  // tests; the sums are the same).
  enum class Loops { kWidest, kAvx2 };

  // From this many weights (floats, padded to whole panels) on, Run splits
  // the panels across ATen's intra-op threads, each at least half of this:
  // reading a weight of 1 MiB takes about 100 us on one core, twice the
  // VM's cross-core wake-up.
  static constexpr int64_t kSplitWeights = 256 * 1024;

  // `weight`: [n, k] row-major; `bias`: n values or nullptr.
  StreamedLinear(const float* weight, const float* bias, int64_t n, int64_t k,
                 Loops loops = Loops::kWidest);

  // y[r] = x_rows[r] W^T + b for r < rows.
  void Run(const float* const* x_rows, int64_t rows, float* y, int64_t y_row_stride) const;
  // The same for rows of x one after another ([rows, k]) into y [rows, n].
  void Run(const float* x, int64_t rows, float* y) const;

  int64_t outputs() const { return n_; }
  int64_t inputs() const { return k_; }

 private:
  // y = x W^T + b for `rows` rows, the pointers to the rows of a pass from
  // pass_rows(first row, rows, a buffer of a pass's pointers it may fill),
  // the panels split across threads as above.
  template <typename PassRows>
  void RunRows(int64_t rows, const PassRows& pass_rows, float* y, int64_t y_row_stride) const;

  int64_t n_, k_;
  bool avx512_;                     // Run takes the AVX-512 loops
  std::vector<float> panels_;       // [ceil(n / 16), k, 16], zero padded
  std::vector<float> padded_bias_;  // n rounded up to 16 values (zeros without a bias)
  PreparedWeightCharge charge_;     // both, in the prepared weights (execution/kernel_caches.h)
};

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_LINALG_STREAMED_LINEAR_H_
