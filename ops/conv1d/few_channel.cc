#include "ops/conv1d/few_channel.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "glog/logging.h"
#include "ops/per_isa.h"

namespace static_runtime {
namespace ops {
namespace {

// Output positions per panel: the panel (taps x kTile floats, at most 64 KiB)
// stays in the core's caches while every output channel reads it.
constexpr int64_t kTile = 256;
// Sixteen floats (one AVX-512 register; two AVX2 or four SSE ones), read
// and written unaligned through memcpy.
using Floats = float __attribute__((vector_size(64)));
constexpr int64_t kLanes = sizeof(Floats) / sizeof(float);

// (By reference: a vector returned by value would change with the ISA's ABI.)
__attribute__((always_inline)) inline void Load(const float* from, Floats& v) {
  std::memcpy(&v, from, sizeof v);
}

// y[i] = bias + sum_j w[j] * panel[j * kTile + i] for i in [0, count),
// count <= kTile, j in order; four vectors of sums kept in registers.
STATIC_RUNTIME_PER_ISA void PanelRow(const float* panel, const float* w, int64_t taps, float bias,
                                     int64_t count, float* y) {
  int64_t first = 0;
  for (; first + 4 * kLanes <= count; first += 4 * kLanes) {
    Floats s0 = Floats{} + bias, s1 = s0, s2 = s0, s3 = s0;
    for (int64_t j = 0; j < taps; ++j) {
      const float* row = panel + j * kTile + first;
      const Floats weight = Floats{} + w[j];
      Floats x0, x1, x2, x3;
      Load(row, x0);
      Load(row + kLanes, x1);
      Load(row + 2 * kLanes, x2);
      Load(row + 3 * kLanes, x3);
      s0 += weight * x0;
      s1 += weight * x1;
      s2 += weight * x2;
      s3 += weight * x3;
    }
    std::memcpy(y + first, &s0, sizeof s0);
    std::memcpy(y + first + kLanes, &s1, sizeof s1);
    std::memcpy(y + first + 2 * kLanes, &s2, sizeof s2);
    std::memcpy(y + first + 3 * kLanes, &s3, sizeof s3);
  }
  for (int64_t i = first; i < count; ++i) {
    float sum = bias;
    for (int64_t j = 0; j < taps; ++j) sum += w[j] * panel[j * kTile + i];
    y[i] = sum;
  }
}

}  // namespace

void FewChannelConv1d(const FewChannelConv1dShape& s, const float* x, const float* w,
                      const float* bias, float* y) {
  const int64_t taps = s.in_channels * s.kernel;
  CHECK_LE(taps, kFewChannelConv1dMaxTaps);
  // panel[(c * kernel + k) * kTile + i]: the input tap (c, k) of output
  // position first + i, zero in the padding. Kept per thread: a run
  // allocates nothing.
  thread_local std::vector<float> panel;
  panel.resize(kFewChannelConv1dMaxTaps * kTile);
  for (int64_t n = 0; n < s.batch; ++n) {
    const float* image = x + n * s.in_channels * s.width;
    float* result = y + n * s.out_channels * s.out_width;
    for (int64_t first = 0; first < s.out_width; first += kTile) {
      const int64_t count = std::min(kTile, s.out_width - first);
      for (int64_t c = 0; c < s.in_channels; ++c) {
        for (int64_t k = 0; k < s.kernel; ++k) {
          float* row = panel.data() + (c * s.kernel + k) * kTile;
          const int64_t offset = first * s.stride + k * s.dilation - s.padding;
          for (int64_t i = 0; i < count; ++i) {
            const int64_t at = offset + i * s.stride;
            row[i] = at >= 0 && at < s.width ? image[c * s.width + at] : 0.0f;
          }
        }
      }
      for (int64_t o = 0; o < s.out_channels; ++o) {
        PanelRow(panel.data(), w + o * taps, taps, bias == nullptr ? 0.0f : bias[o], count,
                 result + o * s.out_width + first);
      }
    }
  }
}

}  // namespace ops
}  // namespace static_runtime
