#include "ops/conv/winograd_3x3.h"

#include <algorithm>

#include "glog/logging.h"
#include "ops/conv/winograd_3x3_avx2.h"
#include "ops/core/cpu_isa.h"

namespace static_runtime {
namespace ops {
namespace {

// PreferredTile's measured thresholds.
constexpr int64_t kMinChannels = 64;
constexpr int64_t kMinOutputs = 4 * 4;
constexpr int64_t kMinOutputsForTile4 = 14 * 14;

// G, the weight's transform, of F(2x2, 3x3) and of F(4x4, 3x3).
constexpr double kG2[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
constexpr double kG4[6][3] = {{0.25, 0, 0},
                              {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                              {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                              {1.0 / 24, 1.0 / 12, 1.0 / 6},
                              {1.0 / 24, -1.0 / 12, 1.0 / 6},
                              {0, 0, 1}};

}  // namespace

bool Winograd3x3::Available() { return CpuRunsAvx2(); }

bool Winograd3x3::Preferred(int64_t in_channels, int64_t out_channels) {
  return Available() && !CpuRunsAvx512() && in_channels >= kMinChannels &&
         out_channels >= kMinChannels;
}

int Winograd3x3::PreferredTile(int64_t in_channels, int64_t out_channels, int64_t out_height,
                               int64_t out_width) {
  const int64_t outputs = out_height * out_width;
  if (!Preferred(in_channels, out_channels) || outputs < kMinOutputs) return 0;
  return outputs >= kMinOutputsForTile4 ? 4 : 2;
}

Winograd3x3::Winograd3x3(const float* weight, const float* bias, int64_t out_channels,
                         int64_t in_channels, int tile) {
  CHECK(in_channels > 0 && out_channels > 0);
  CHECK(tile == 2 || (tile == 4 && in_channels >= kMinTile4Channels));
  Weights& w = weights_;
  w.tile = tile;
  w.in_channels = in_channels;
  w.out_channels = out_channels;
  w.padded_out = (out_channels + 15) / 16 * 16;
  const int n = tile + 2;  // the input tile's side
  w.panels.assign(n * n * w.padded_out * in_channels, 0.0f);
  w.bias.assign(w.padded_out, 0.0f);
  if (bias != nullptr) std::copy(bias, bias + out_channels, w.bias.begin());
  // G g G^T in double, rounded once.
  const double(*kG)[3] = tile == 2 ? kG2 : kG4;
  for (int64_t k = 0; k < out_channels; ++k) {
    for (int64_t c = 0; c < in_channels; ++c) {
      const float* g = weight + (k * in_channels + c) * 9;
      double gt[6][3];  // G g (its first n rows)
      for (int i = 0; i < n; ++i) {
        for (int j = 0; j < 3; ++j) {
          gt[i][j] = kG[i][0] * g[j] + kG[i][1] * g[3 + j] + kG[i][2] * g[6 + j];
        }
      }
      for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
          const double u = gt[i][0] * kG[j][0] + gt[i][1] * kG[j][1] + gt[i][2] * kG[j][2];
          const int64_t position = i * n + j;
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

size_t Winograd3x3::PreparedBytes() const {
  return (weights_.panels.size() + weights_.bias.size()) * sizeof(float);
}

Winograd3x3ByTile::Winograd3x3ByTile(const float* weight, const float* bias, int64_t out_channels,
                                     int64_t in_channels)
    : account_(KernelCacheScope::Current()),
      weight_(weight),
      bias_(bias),
      out_channels_(out_channels),
      in_channels_(in_channels) {}

Winograd3x3ByTile::~Winograd3x3ByTile() {
  for (const std::optional<Winograd3x3>& kernel : kernels_) {
    if (kernel) account_->WeightDropped(kernel->PreparedBytes());
  }
}

const Winograd3x3& Winograd3x3ByTile::ForTile(int tile) {
  const int slot = tile == 4 ? 1 : 0;
  std::call_once(once_[slot], [&] {
    kernels_[slot].emplace(weight_, bias_, out_channels_, in_channels_, tile);
    account_->WeightPrepared(kernels_[slot]->PreparedBytes());
  });
  return *kernels_[slot];
}

}  // namespace ops
}  // namespace static_runtime
