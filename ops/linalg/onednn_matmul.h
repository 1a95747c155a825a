// A linear with a frozen weight on oneDNN's matmul (brgemm): out[rows, N] =
// src[rows, K] W^T (+ b), with W [N, K] re-laid out once, in the blocked
// format oneDNN's kernel for the number of rows wants, and shared by every
// thread and every row count that wants the same format: packed at
// construction (load time) in the format of a few rows, which is every row
// count's where oneDNN runs its brgemm kernels (AVX-512), so that a new
// shape's first call only makes its plan. One plan per row count
// (onednn::PlanCache); a steady-state call allocates nothing.
//
// Numerics: oneDNN sums the K products in another order than BLAS (ATen's
// linear); see LinearFusedErrorBound in ops/linalg/linear_error_bound.h.
#ifndef STATIC_RUNTIME_OPS_LINALG_ONEDNN_MATMUL_H_
#define STATIC_RUNTIME_OPS_LINALG_ONEDNN_MATMUL_H_

#include <memory>

#include "ATen/ATen.h"
#include "ops/onednn/onednn.h"

namespace static_runtime {
namespace onednn {

class PackedLinear {
 public:
  // `weight`: float32, 2-D, contiguous, non-empty; `bias`: undefined or
  // float32 [N], contiguous. Both must outlive the object.
  PackedLinear(at::Tensor weight, at::Tensor bias);

  int64_t in_features() const { return weight_.size(1); }
  int64_t out_features() const { return weight_.size(0); }

  // `src`: float32, contiguous, rows * in_features() values; `out`: float32,
  // contiguous, rows * out_features() values (not overlapping `src`).
  void Run(const float* src, int64_t rows, float* out);

 private:
  // The matmul of `rows` rows, on the weight's layout of oneDNN's choice.
  dnnl::matmul::primitive_desc Describe(int64_t rows) const;
  std::unique_ptr<Plan> MakePlan(int64_t rows);

  const at::Tensor weight_;
  const at::Tensor bias_;
  PackedWeights packed_;
  PlanCache<> plans_;
};

}  // namespace onednn
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_LINALG_ONEDNN_MATMUL_H_
