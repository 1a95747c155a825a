#include "ops/attention/attention_steps.h"

#include <cmath>
#include <cstring>

#include "ops/core/per_isa.h"

namespace static_runtime {
namespace ops {

namespace {

// out = (x + bias) * scale, and out = x + bias: the inner loops of
// SplitHeads, inlined into each of its clones.
__attribute__((always_inline)) inline void Rescale(const float* __restrict x,
                                                   const float* __restrict bias, float scale,
                                                   int64_t count, float* __restrict out) {
  for (int64_t i = 0; i < count; ++i) out[i] = (x[i] + bias[i]) * scale;
}
__attribute__((always_inline)) inline void AddBias(const float* __restrict x,
                                                   const float* __restrict bias, int64_t count,
                                                   float* __restrict out) {
  for (int64_t i = 0; i < count; ++i) out[i] = x[i] + bias[i];
}

}  // namespace

STATIC_RUNTIME_PER_ISA void SplitHeads(const float* qkv, const float* bias, int64_t batch,
                                       int64_t tokens, int64_t width, int64_t heads, float* q_k_v) {
  const int64_t head_width = width / heads;
  // ATen's constant: 1.0 / sqrt in double of the float square root, rounded.
  const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<float>(head_width)));
  const int64_t part = batch * tokens * width;  // elements of each of q, k, v
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t t = 0; t < tokens; ++t) {
      const float* row = qkv + (b * tokens + t) * 3 * width;
      for (int64_t h = 0; h < heads; ++h) {
        const int64_t d0 = h * head_width;
        float* const q = q_k_v + ((b * heads + h) * tokens + t) * head_width;
        Rescale(row + d0, bias + d0, scale, head_width, q);
        AddBias(row + width + d0, bias + width + d0, head_width, q + part);
        AddBias(row + 2 * width + d0, bias + 2 * width + d0, head_width, q + 2 * part);
      }
    }
  }
}

void MergeHeads(const float* context, int64_t batch, int64_t tokens, int64_t width, int64_t heads,
                float* merged) {
  const int64_t head_width = width / heads;
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t h = 0; h < heads; ++h) {
      for (int64_t t = 0; t < tokens; ++t) {
        std::memcpy(merged + (b * tokens + t) * width + h * head_width,
                    context + ((b * heads + h) * tokens + t) * head_width,
                    head_width * sizeof(float));
      }
    }
  }
}

STATIC_RUNTIME_PER_ISA void AddInPlace(float* out, const float* addend, int64_t count) {
  for (int64_t i = 0; i < count; ++i) out[i] = out[i] + addend[i];
}

}  // namespace ops
}  // namespace static_runtime
