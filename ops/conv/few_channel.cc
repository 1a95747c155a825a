#include "ops/conv/few_channel.h"

#include <algorithm>
#include <vector>

#include "glog/logging.h"
#include "ops/conv/few_channel_panel.h"
#include "ops/core/cpu_isa.h"

namespace static_runtime {
namespace ops {
namespace {

// The widest loop this CPU runs.
PanelRowFunction PanelRow() {
  return CpuRunsAvx512() ? PanelRowAvx512 : CpuRunsAvx2() ? PanelRowAvx2 : PanelRowBaseline;
}

}  // namespace

void FewChannelConv1d(const FewChannelConv1dShape& s, const float* x, const float* w,
                      const float* bias, float* y) {
  const int64_t taps = s.in_channels * s.kernel;
  CHECK_LE(taps, kFewChannelConv1dMaxTaps);
  // panel[(c * kernel + k) * kFewChannelTile + i]: the input tap (c, k) of output
  // position first + i, zero in the padding. Kept per thread: a run
  // allocates nothing.
  thread_local std::vector<float> panel;
  panel.resize(kFewChannelConv1dMaxTaps * kFewChannelTile);
  for (int64_t n = 0; n < s.batch; ++n) {
    const float* image = x + n * s.in_channels * s.width;
    float* result = y + n * s.out_channels * s.out_width;
    for (int64_t first = 0; first < s.out_width; first += kFewChannelTile) {
      const int64_t count = std::min(kFewChannelTile, s.out_width - first);
      for (int64_t c = 0; c < s.in_channels; ++c) {
        for (int64_t k = 0; k < s.kernel; ++k) {
          float* row = panel.data() + (c * s.kernel + k) * kFewChannelTile;
          const int64_t offset = first * s.stride + k * s.dilation - s.padding;
          for (int64_t i = 0; i < count; ++i) {
            const int64_t at = offset + i * s.stride;
            row[i] = at >= 0 && at < s.width ? image[c * s.width + at] : 0.0f;
          }
        }
      }
      const PanelRowFunction panel_row = PanelRow();
      for (int64_t o = 0; o < s.out_channels; ++o) {
        panel_row(panel.data(), w + o * taps, taps, bias == nullptr ? 0.0f : bias[o], count,
                  result + o * s.out_width + first);
      }
    }
  }
}

}  // namespace ops
}  // namespace static_runtime
