// FewChannelConv1d's inner loop (few_channel.cc), written once for vectors
// of any width and compiled once per ISA, each translation unit with its
// own flags and vector type (few_channel_baseline.cc: 4 floats, SSE;
// few_channel_avx2.cc: 8; few_channel_avx512.cc: 16): GCC lowers
// a vector type for the ISA of the function that spells it, so a 16-float
// vector in an AVX2 function goes through the stack, ten times slower than
// AVX2's own. The contract of every PanelRow function:
//   y[i] = bias + sum_j w[j] * panel[j * kFewChannelTile + i]
// for i in [0, count), count <= kFewChannelTile, the taps j = 0 .. taps-1
// added in order, each product rounded before its addition (the files are
// built with -ffp-contract=off): the same bits on every ISA.
#ifndef STATIC_RUNTIME_OPS_CONV_FEW_CHANNEL_PANEL_H_
#define STATIC_RUNTIME_OPS_CONV_FEW_CHANNEL_PANEL_H_

#include <cstdint>

namespace static_runtime {
namespace ops {

// Output positions per panel: the panel (taps x kFewChannelTile floats, at
// most 64 KiB) stays in the core's caches while every output channel reads
// it.
constexpr int64_t kFewChannelTile = 256;

using PanelRowFunction = void (*)(const float* panel, const float* w, int64_t taps, float bias,
                                  int64_t count, float* y);

void PanelRowBaseline(const float* panel, const float* w, int64_t taps, float bias, int64_t count,
                      float* y);
void PanelRowAvx2(const float* panel, const float* w, int64_t taps, float bias, int64_t count,
                  float* y);
void PanelRowAvx512(const float* panel, const float* w, int64_t taps, float bias, int64_t count,
                    float* y);

// The loop for vectors `Floats` (a GCC vector of floats); four vectors of
// sums kept in registers. Include only where every function is compiled
// for an ISA whose registers hold a Floats.
template <typename Floats>
__attribute__((always_inline)) inline void PanelRowOf(const float* panel, const float* w,
                                                      int64_t taps, float bias, int64_t count,
                                                      float* y) {
  constexpr int64_t kLanes = sizeof(Floats) / sizeof(float);
  int64_t first = 0;
  for (; first + 4 * kLanes <= count; first += 4 * kLanes) {
    Floats s0 = Floats{} + bias, s1 = s0, s2 = s0, s3 = s0;
    for (int64_t j = 0; j < taps; ++j) {
      const float* row = panel + j * kFewChannelTile + first;
      const Floats weight = Floats{} + w[j];
      Floats x0, x1, x2, x3;
      __builtin_memcpy(&x0, row, sizeof x0);
      __builtin_memcpy(&x1, row + kLanes, sizeof x1);
      __builtin_memcpy(&x2, row + 2 * kLanes, sizeof x2);
      __builtin_memcpy(&x3, row + 3 * kLanes, sizeof x3);
      s0 += weight * x0;
      s1 += weight * x1;
      s2 += weight * x2;
      s3 += weight * x3;
    }
    __builtin_memcpy(y + first, &s0, sizeof s0);
    __builtin_memcpy(y + first + kLanes, &s1, sizeof s1);
    __builtin_memcpy(y + first + 2 * kLanes, &s2, sizeof s2);
    __builtin_memcpy(y + first + 3 * kLanes, &s3, sizeof s3);
  }
  for (int64_t i = first; i < count; ++i) {
    float sum = bias;
    for (int64_t j = 0; j < taps; ++j) sum += w[j] * panel[j * kFewChannelTile + i];
    y[i] = sum;
  }
}

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_CONV_FEW_CHANNEL_PANEL_H_
