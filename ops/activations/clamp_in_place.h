// relu and hardtanh (relu6) in place on float32 buffers, as ATen's clamp
// kernels compute them, bit for bit, without ATen's dispatch and iterator
// (about 1 us a call, on tensors a convolution or a linear has just
// written): relu is clamp_min(x, 0), hardtanh is clamp(x, lo, hi), each
// bound taken where x is below (above) it and x kept otherwise, so NaN
// stays NaN and -0 stays -0 (relu of a negative x is +0), as ATen's vector
// (max/min instructions with x second) and scalar (std::max/std::min) loops
// give. hardsigmoid is clamp(x + 3, 0, 6) / 6 and hardswish
// x * clamp(x + 3, 0, 6) / 6, in that order of roundings, as ATen's kernels
// (a NaN x gives a NaN, but x's own where ATen's vector loops give the
// all-ones NaN). For the epilogues of conv2d_fused,
// linear_fused and transformer_encoder_layer.
#ifndef STATIC_RUNTIME_OPS_ACTIVATIONS_CLAMP_IN_PLACE_H_
#define STATIC_RUNTIME_OPS_ACTIVATIONS_CLAMP_IN_PLACE_H_

#include <cstdint>
#include <limits>

namespace static_runtime {
namespace ops {

// hardtanh(x, lo, hi): ATen's float bounds (its Scalar arguments as float).
void ClampInPlace(float* data, int64_t count, float lo, float hi);

// relu: clamp_min(x, 0) (no x is above +inf).
inline void ReluInPlace(float* data, int64_t count) {
  ClampInPlace(data, count, 0.f, std::numeric_limits<float>::infinity());
}

void HardsigmoidInPlace(float* data, int64_t count);
void HardswishInPlace(float* data, int64_t count);

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_ACTIVATIONS_CLAMP_IN_PLACE_H_
