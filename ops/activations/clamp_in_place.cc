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

// clamp(x + 3, 0, 6): hardsigmoid's and hardswish's gate, before the
// division.
template <typename T>
__attribute__((always_inline)) inline T Gate(T x, T zero, T three, T six) {
  return Clamp(x + three, zero, six);
}

}  // namespace

STATIC_RUNTIME_PER_ISA void ClampInPlace(float* data, int64_t count, float lo, float hi) {
  const V low = Splat32(lo), high = Splat32(hi);
  int64_t i = 0;
  for (; i + kLanes <= count; i += kLanes) Store32(data + i, Clamp(Load32(data + i), low, high));
  for (; i < count; ++i) data[i] = Clamp(data[i], lo, hi);
}

STATIC_RUNTIME_PER_ISA void HardsigmoidInPlace(float* data, int64_t count) {
  const V zero = Splat32(0.f), three = Splat32(3.f), six = Splat32(6.f);
  int64_t i = 0;
  for (; i + kLanes <= count; i += kLanes) {
    Store32(data + i, Gate(Load32(data + i), zero, three, six) / six);
  }
  for (; i < count; ++i) data[i] = Gate(data[i], 0.f, 3.f, 6.f) / 6.f;
}

STATIC_RUNTIME_PER_ISA void HardswishInPlace(float* data, int64_t count) {
  const V zero = Splat32(0.f), three = Splat32(3.f), six = Splat32(6.f);
  int64_t i = 0;
  for (; i + kLanes <= count; i += kLanes) {
    const V x = Load32(data + i);
    Store32(data + i, x * Gate(x, zero, three, six) / six);
  }
  for (; i < count; ++i) data[i] = data[i] * Gate(data[i], 0.f, 3.f, 6.f) / 6.f;
}

}  // namespace ops
}  // namespace static_runtime
