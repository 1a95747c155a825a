// A linear with a frozen weight on oneDNN's matmul (brgemm): out[rows, N] =
// src[rows, K] W^T (+ b), with W [N, K] re-laid out once, in the blocked
// format oneDNN's kernel for the number of rows wants, and shared by every
// thread and every row count that wants the same format: packed at
// construction (load time) in the format of a few rows, which is every row
// count's where oneDNN runs its brgemm kernels (AVX-512). One plan per row
// count (onednn::PlanCache); a steady-state call allocates nothing.
//
// A new row count costs no plan on the call that meets it, where oneDNN
// runs brgemm: making a plan takes 0.2-0.6 ms (its kernels are generated
// for the shape), more than the product itself for most linears. There a
// row's result depends only on the row and the weight, not on how many rows
// one primitive multiplies (the test checks it on every CPU of the matrix),
// so the call runs in blocks of kBlockRows rows on a plan made at load time
// (the last block padded), and posts the making of the row count's own plan
// to the background (execution/background_work.h); calls before it is made
// run in blocks too, with the same results. Elsewhere (oneDNN's gemm matmul,
// below AVX-512: a row's result depends on the row count, and plans cost
// 5-80 us) the call makes its plan.
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
  // The rows of the plan made at load time, on which new row counts run.
  static constexpr int64_t kBlockRows = 16;

  // `weight`: float32, 2-D, contiguous, non-empty; `bias`: undefined or
  // float32 [N], contiguous. Both must outlive the object.
  PackedLinear(at::Tensor weight, at::Tensor bias);
  PackedLinear(const PackedLinear&) = delete;
  PackedLinear& operator=(const PackedLinear&) = delete;

  int64_t in_features() const;
  int64_t out_features() const;

  // Whether a row count met for the first time runs in blocks while its plan
  // is made in the background (where oneDNN runs brgemm).
  bool RunsNewRowCountsInBlocks() const;

  // `src`: float32, contiguous, rows * in_features() values; `out`: float32,
  // contiguous, rows * out_features() values (not overlapping `src`).
  void Run(const float* src, int64_t rows, float* out);

 private:
  struct State;  // shared with the background work making plans
  std::shared_ptr<State> state_;
};

}  // namespace onednn
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_LINALG_ONEDNN_MATMUL_H_
