#include "ops/activations/clamp_in_place.h"

#include "ops/core/per_isa.h"
#include "ops/core/vec32.h"

namespace static_runtime {
namespace ops {
namespace {

using V = Vec32<float>::Type;
constexpr int kLanes = Vec32<float>::kLanes;

// x below lo takes lo, x above hi takes hi; the rest (NaN among them) stay.
__attribute__((always_inline)) inline V Clamp(V x, V lo, V hi) {
  x = x < lo ? lo : x;
  return x > hi ? hi : x;
}
__attribute__((always_inline)) inline float Clamp(float x, float lo, float hi) {
  x = x < lo ? lo : x;
  return x > hi ? hi : x;
}

}  // namespace

STATIC_RUNTIME_PER_ISA void ClampInPlace(float* data, int64_t count, float lo, float hi) {
  const V low = Splat32(lo), high = Splat32(hi);
  int64_t i = 0;
  for (; i + kLanes <= count; i += kLanes) Store32(data + i, Clamp(Load32(data + i), low, high));
  for (; i < count; ++i) data[i] = Clamp(data[i], lo, hi);
}

}  // namespace ops
}  // namespace static_runtime
