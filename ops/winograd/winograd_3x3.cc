#include "ops/winograd/winograd_3x3.h"

#include <algorithm>

#include "glog/logging.h"
#include "ops/winograd/winograd_3x3_avx2.h"

namespace static_runtime {
namespace ops {
namespace {

// Preferred's measured thresholds.
constexpr int64_t kMinChannels = 64;
constexpr int64_t kMinOutputs = 4 * 4;

}  // namespace

bool Winograd3x3::Available() {
  static const bool kAvailable = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return kAvailable;
}

bool Winograd3x3::Preferred(int64_t in_channels, int64_t out_channels) {
  static const bool kPreferredOnThisCpu = Available() && !__builtin_cpu_supports("avx512f");
  return kPreferredOnThisCpu && in_channels >= kMinChannels && out_channels >= kMinChannels;
}

bool Winograd3x3::Preferred(int64_t in_channels, int64_t out_channels, int64_t out_height,
                            int64_t out_width) {
  return Preferred(in_channels, out_channels) && out_height * out_width >= kMinOutputs;
}

Winograd3x3::Winograd3x3(const float* weight, const float* bias, int64_t out_channels,
                         int64_t in_channels) {
  CHECK(in_channels > 0 && out_channels > 0);
  Weights& w = weights_;
  w.in_channels = in_channels;
  w.out_channels = out_channels;
  w.padded_out = (out_channels + 15) / 16 * 16;
  w.panels.assign(16 * w.padded_out * in_channels, 0.0f);
  w.bias.assign(w.padded_out, 0.0f);
  if (bias != nullptr) std::copy(bias, bias + out_channels, w.bias.begin());
  // G g G^T in double, rounded once.
  static constexpr double kG[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  for (int64_t k = 0; k < out_channels; ++k) {
    for (int64_t c = 0; c < in_channels; ++c) {
      const float* g = weight + (k * in_channels + c) * 9;
      double gt[4][3];  // G g
      for (int i = 0; i < 4; ++i) {
        for (int j = 0; j < 3; ++j) {
          gt[i][j] = kG[i][0] * g[j] + kG[i][1] * g[3 + j] + kG[i][2] * g[6 + j];
        }
      }
      for (int i = 0; i < 4; ++i) {
        for (int j = 0; j < 4; ++j) {
          const double u = gt[i][0] * kG[j][0] + gt[i][1] * kG[j][1] + gt[i][2] * kG[j][2];
          const int64_t position = i * 4 + j;
          w.panels[((position * (w.padded_out / 16) + k / 16) * in_channels + c) * 16 + k % 16] =
              static_cast<float>(u);
        }
      }
    }
  }
}

void Winograd3x3::Run(const Winograd3x3Shape& shape, const float* x, float* y) const {
  CHECK(Available());
  RunWinograd3x3Avx2(weights_, shape, x, y);
}

}  // namespace ops
}  // namespace static_runtime
