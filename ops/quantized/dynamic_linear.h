// quantized::linear_dynamic as LibTorch 1.13 computes it for weights packed
// by the onednn engine (its ideep path), bit for bit, without its cost per
// call: LibTorch keys its primitive cache on the input's quantization scale,
// which changes with every input, so it builds a new oneDNN primitive on
// almost every call (about 90% of the op's time on a 32x256 by 256x512
// product); DynamicLinear makes one int8 product plan per row count and does
// the rest itself:
//   1. the input's range [min(x, 0), max(x, 0)] gives its scale s and zero
//      point z (quant_utils::ChooseQuantizationParams, 0..255, or 0..127
//      with reduce_range), and a = float(1 / s);
//   2. q = clamp(nearbyint(x * a + z), 0, 255), each step rounded to float
//      (oneDNN's reorder);
//   3. acc[m][n] = sum_k (q[m][k] - z) w[n][k], exactly (a u8 x s8 -> s32
//      oneDNN matmul and the weight's column sums);
//   4. with c[n] = a * (1 / w_scale[n]) in float (the weight's reciprocal
//      scale as LibTorch's packing keeps it):
//      out = (float(acc) + bias[n] * c[n]) * (1 / c[n])   (then relu)
//      which is how oneDNN applies a bias and output scale to an int8
//      product (ideep hands it the reciprocal scales).
// Only where oneDNN has VNNI: without it int8 products go through 16-bit
// sums that saturate, in places that differ from primitive to primitive
// (measured: ONEDNN_MAX_CPU_ISA=AVX2 or AVX512_CORE gives results a few
// quanta off LibTorch's on large inputs), while VNNI sums exactly.
#ifndef STATIC_RUNTIME_OPS_QUANTIZED_DYNAMIC_LINEAR_H_
#define STATIC_RUNTIME_OPS_QUANTIZED_DYNAMIC_LINEAR_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "ATen/ATen.h"
#include "ATen/native/quantized/PackedParams.h"
#include "ops/onednn/onednn.h"

namespace static_runtime {
namespace quantized {

// Whether oneDNN's int8 products are exact on this CPU (VNNI's 32-bit sums;
// ONEDNN_MAX_CPU_ISA may hold it below): DynamicLinear exists only then.
bool ExactIntegerProducts();

class DynamicLinear {
 public:
  // The linear of `params` (symmetric int8 weights packed by the onednn
  // engine), applying a relu when `relu`; nullptr for other parameters, or
  // on a CPU without exact int8 products.
  static std::unique_ptr<DynamicLinear> FromPacked(const LinearPackedParamsBase& params, bool relu);

  int64_t in_features() const { return weight_.size(1); }
  int64_t out_features() const { return weight_.size(0); }

  // out [rows, N] = the op on x [rows, K] (contiguous float32, rows > 0);
  // false, with nothing written, when x holds a value that is not finite
  // (where LibTorch's op fails or differs).
  bool Compute(const float* x, int64_t rows, bool reduce_range, float* out);

  // `weight`: qint8 [N, K], per-tensor or per-channel (axis 0) scales, zero
  // points 0; `bias`: float [N] or undefined. Use FromPacked.
  DynamicLinear(const at::Tensor& weight, at::Tensor bias, bool relu);

 private:
  std::unique_ptr<onednn::Plan> MakePlan(int64_t rows);

  const at::Tensor weight_;  // int8 [N, K]
  const at::Tensor bias_;
  const bool relu_;
  std::vector<float> inverse_weight_scales_;  // 1 / scale, per output
  std::vector<int32_t> column_sums_;          // sum over k of w[n][k]
  onednn::PackedWeights packed_;
  onednn::PlanCache<> plans_;
};

}  // namespace quantized
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_QUANTIZED_DYNAMIC_LINEAR_H_
