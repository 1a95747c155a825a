#include "ops/conv/depthwise.h"

#include <algorithm>

#include "ops/core/per_isa.h"

namespace static_runtime {
namespace ops {
namespace {

// out[i] += weight * in[i] for i in [0, count): vectorized per ISA.
STATIC_RUNTIME_PER_ISA void AddScaled(const float* in, float weight, int64_t count, float* out) {
  for (int64_t i = 0; i < count; ++i) out[i] += weight * in[i];
}

// One channel of one image.
void Row(const DepthwiseConv1dShape& s, const float* x, const float* w, float bias, float* y) {
  std::fill(y, y + s.out_width, bias);
  for (int64_t k = 0; k < s.kernel; ++k) {
    const int64_t offset = k * s.dilation - s.padding;  // input index of output 0
    // Outputs whose input index offset + l * stride lies in [0, width).
    const int64_t first = offset >= 0 ? 0 : (-offset + s.stride - 1) / s.stride;
    const int64_t past =
        offset >= s.width ? 0 : std::min(s.out_width, (s.width - 1 - offset) / s.stride + 1);
    if (first >= past) continue;
    if (s.stride == 1) {
      AddScaled(x + offset + first, w[k], past - first, y + first);
    } else {
      for (int64_t l = first; l < past; ++l) y[l] += w[k] * x[offset + l * s.stride];
    }
  }
}

}  // namespace

void DepthwiseConv1d(const DepthwiseConv1dShape& shape, const float* x, const float* w,
                     const float* bias, float* y) {
  for (int64_t n = 0; n < shape.batch; ++n) {
    for (int64_t c = 0; c < shape.channels; ++c) {
      const int64_t row = n * shape.channels + c;
      Row(shape, x + row * shape.width, w + c * shape.kernel, bias == nullptr ? 0.0f : bias[c],
          y + row * shape.out_width);
    }
  }
}

}  // namespace ops
}  // namespace static_runtime
