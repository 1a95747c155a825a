// y = x W^T + b (then relu, optionally) for small float32 matrices, where
// a oneDNN matmul's fixed cost per call (about 1 us) is most of its time:
// register-blocked AVX2/FMA loops over a copy of W^T packed once (below 4
// rows, 64 columns at a time: eight independent chains of FMAs per row). Each
// result is (((x_0 w_0 + x_1 w_1) + ...) + x_{k-1} w_{k-1}) + b, one fused
// multiply-add per product in the order of k, then the bias: the order of a
// GEMM micro-kernel's accumulator over one block of k (BLAS's and oneDNN's
// for the small k this is for, so results usually equal ATen's bit for bit;
// in any case inside the bound linear_fused declares: ops/linalg/linear_error_bound.h).
#ifndef STATIC_RUNTIME_OPS_LINALG_SMALL_LINEAR_H_
#define STATIC_RUNTIME_OPS_LINALG_SMALL_LINEAR_H_

#include <cstdint>
#include <vector>

#include "execution/kernel_caches.h"

namespace static_runtime {
namespace ops {

class SmallLinear {
 public:
  // Whether this CPU runs the loops (AVX2 and FMA).
  static bool Available();

  // `weight`: [n, k] row-major; `bias`: n values or nullptr.
  SmallLinear(const float* weight, const float* bias, int64_t n, int64_t k);

  // `x`: [rows, k] row-major; `y`: [rows, n] row-major (not overlapping x).
  // relu: y = max(y, 0), NaN kept (as ATen's relu).
  void Run(const float* x, int64_t rows, float* y, bool relu) const;

 private:
  int64_t n_, k_, padded_n_;        // padded_n_: n rounded up to 8
  std::vector<float> packed_;       // W^T: [k, padded_n_], zero padded
  std::vector<float> padded_bias_;  // padded_n_ values (zeros without a bias)
  PreparedWeightCharge charge_;     // both, in the prepared weights (execution/kernel_caches.h)
};

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_LINALG_SMALL_LINEAR_H_
