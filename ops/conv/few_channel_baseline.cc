#include "ops/conv/few_channel_panel.h"

namespace static_runtime {
namespace ops {

void PanelRowBaseline(const float* panel, const float* w, int64_t taps, float bias, int64_t count,
                      float* y) {
  using Floats = float __attribute__((vector_size(16)));  // 4 floats
  PanelRowOf<Floats>(panel, w, taps, bias, count, y);
}

}  // namespace ops
}  // namespace static_runtime
