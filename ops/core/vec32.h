// 32 bytes of float or double in GCC/Clang vector extensions, for loops
// that are compiled once per ISA (target_clones): each clone compiles them
// to its own instructions (AVX2/AVX-512: one register; default: two SSE
// registers). Loads and stores are unaligned.
#ifndef STATIC_RUNTIME_OPS_CORE_VEC32_H_
#define STATIC_RUNTIME_OPS_CORE_VEC32_H_

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace static_runtime {
namespace ops {

template <typename T>
struct Vec32;

template <>
struct Vec32<float> {
  typedef float Type __attribute__((vector_size(32)));
  static constexpr int kLanes = 8;
  // Lanes 0, 2, 4, ... of the 16 values a, b.
  __attribute__((always_inline)) static Type Even(Type a, Type b) {
    return __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14);
  }
};

template <>
struct Vec32<double> {
  typedef double Type __attribute__((vector_size(32)));
  static constexpr int kLanes = 4;
  __attribute__((always_inline)) static Type Even(Type a, Type b) {
    return __builtin_shufflevector(a, b, 0, 2, 4, 6);
  }
};

template <typename T>
__attribute__((always_inline)) inline typename Vec32<T>::Type Load32(const T* p) {
  typename Vec32<T>::Type v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// kLanes values of `p` that are `stride` (1 or 2) apart; stride 2 reads
// 2 kLanes values.
template <typename T>
__attribute__((always_inline)) inline typename Vec32<T>::Type LoadStrided32(const T* p,
                                                                            int64_t stride) {
  return stride == 1 ? Load32(p) : Vec32<T>::Even(Load32(p), Load32(p + Vec32<T>::kLanes));
}

template <typename T>
__attribute__((always_inline)) inline void Store32(T* p, typename Vec32<T>::Type v) {
  std::memcpy(p, &v, sizeof v);
}

template <typename T>
__attribute__((always_inline)) inline typename Vec32<T>::Type Splat32(T value) {
  typename Vec32<T>::Type v;
  for (int i = 0; i < Vec32<T>::kLanes; ++i) v[i] = value;
  return v;
}

// Visits the outputs [0, width) of a row: `one(o)` computes output o alone,
// `group(first)` outputs [first, first + lanes) at once, or returns false to
// have them computed one at a time. Groups cover [inner_begin, inner_end)
// (at least `lanes` wide), the last one overlapping the one before it
// rather than leaving a tail; the outputs outside go one at a time. Inlined
// always, as `one` and `group` must be, into the caller compiled per ISA: a
// copy compiled once for the baseline ISA would run the vectors as SSE
// registers spilled to the stack (30 times slower, seen).
template <typename One, typename Group>
__attribute__((always_inline)) inline void ForRowInGroups(int64_t width, int64_t inner_begin,
                                                          int64_t inner_end, int64_t lanes,
                                                          One&& one, Group&& group) {
  for (int64_t o = 0; o < inner_begin; ++o) one(o);
  for (int64_t first = inner_begin;; first += lanes) {
    first = std::min(first, inner_end - lanes);
    if (!group(first)) {
      for (int64_t o = first; o < first + lanes; ++o) one(o);
    }
    if (first == inner_end - lanes) break;
  }
  for (int64_t o = inner_end; o < width; ++o) one(o);
}

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_CORE_VEC32_H_
