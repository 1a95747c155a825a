// The per-channel affine map y = fma(x, alpha[c], beta[c]) (one rounding, as
// ATen's vectorized batch-norm loops compute it on CPUs with FMA) over
// float32 tensors in the two dense layouts, with `relu` then ATen's relu of
// each value (max(y, 0) keeping NaN and -0, as ATen's clamp_min). Compiled
// for AVX2 + FMA: call only when ScaleShiftAvailable().
#ifndef STATIC_RUNTIME_OPS_NN_SCALE_SHIFT_H_
#define STATIC_RUNTIME_OPS_NN_SCALE_SHIFT_H_

#include <cstdint>

namespace static_runtime {
namespace ops {

// Whether this CPU runs the loops below (AVX2 and FMA).
bool ScaleShiftAvailable();

// `x` and `y` are [outer, channels, inner] (contiguous; y may be x); rows
// (o, c) numbered o * channels + c from `begin` to `end` are computed.
void ScaleShiftChannelsFirst(const float* x, float* y, const float* alpha, const float* beta,
                             int64_t begin, int64_t end, int64_t channels, int64_t inner,
                             bool relu);

// `x` and `y` are [pixels, channels] (contiguous; y may be x); pixels
// `begin` to `end` are computed.
void ScaleShiftChannelsLast(const float* x, float* y, const float* alpha, const float* beta,
                            int64_t begin, int64_t end, int64_t channels, bool relu);

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_NN_SCALE_SHIFT_H_
