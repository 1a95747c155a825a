// A 3 x 3, stride-1, dilation-1, one-group convolution between dense
// channels-last (NHWC) float32 tensors by Winograd's minimal filtering
// F(2x2, 3x3) or F(4x4, 3x3), for CPUs with AVX2 and FMA, where oneDNN has
// no Winograd kernel (it has them for AVX-512 only). Each M x M block of
// outputs (M = 2 or 4, the tile) comes from the (M + 2) x (M + 2) input tile
// around it: the tile and the weight are transformed (B^T d B, G g G^T),
// multiplied elementwise and summed over the input channels ((M + 2)^2
// matrix products of [tiles, C] by [C, K]: 2.25x or 4x fewer
// multiplications than the direct convolution), and transformed back
// (A^T m A), plus the bias.
//
// Contract: x [batch, height, width, C] and y [batch, out_height,
// out_width, K] dense, not overlapping, any channel counts; the input is
// read as zero outside [0, height) x [0, width), so any padding (top and
// left given, bottom and right implied by the output size) is taken. Results differ from the direct
// convolution's in the last bits: a tile's error grows with the largest input of the tile, within
// ops::Conv2dFusedErrorBound's bound for Winograd shapes (ops/conv/conv_error_bounds.h). A
// steady-state call allocates nothing (per-thread buffers); an object may be used from several
// threads at once.
#ifndef STATIC_RUNTIME_OPS_CONV_WINOGRAD_3X3_H_
#define STATIC_RUNTIME_OPS_CONV_WINOGRAD_3X3_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "execution/kernel_caches.h"

namespace static_runtime {
namespace ops {

struct Winograd3x3Shape {
  int64_t batch, height, width;   // of x
  int64_t pad_top, pad_left;      // where output (0, 0) reads input (-pad_top, -pad_left)
  int64_t out_height, out_width;  // of y
};

class Winograd3x3 {
 public:
  // Whether this CPU runs it (AVX2 and FMA).
  static bool Available();
  // Whether a convolution of these channels may run it on this CPU: AVX2
  // without AVX-512 (oneDNN's own Winograd kernels, for AVX-512, are
  // preferred there) and at least 64 channels of each.
  static bool Preferred(int64_t in_channels, int64_t out_channels);
  // The tile it should run a convolution of these channels with, on images
  // of these many outputs: 0 (not at all: fewer than 4 x 4 outputs, or not
  // Preferred), 2, or 4 from 14 x 14 outputs on. Where it was faster than
  // oneDNN's direct kernel (no faster below 64 channels), and F(4x4) than
  // F(2x2): 0.6-0.9 of its time from 14 x 14 on, but 1.2 at 512 channels on
  // 7 x 7 (//ops/conv:winograd_benchmark, docs/convolutions.md). The
  // transformed weight takes 16/9 (tile 2) or 36/9 (tile 4) of the
  // weight's memory.
  static int PreferredTile(int64_t in_channels, int64_t out_channels, int64_t out_height,
                           int64_t out_width);

  // F(4x4, 3x3)'s transforms amplify rounding more than the declared bound
  // covers for a sum over very few input channels (one channel: 5e-6 past
  // it): tile 4 takes at least this many (PreferredTile asks 64).
  static constexpr int64_t kMinTile4Channels = 16;

  // `weight`: [out_channels, in_channels, 3, 3] (OIHW) contiguous, at least
  // one channel of each (kMinTile4Channels for tile 4); `bias`: out_channels
  // values or nullptr. Both are transformed or copied here. `tile`: 2 or 4.
  Winograd3x3(const float* weight, const float* bias, int64_t out_channels, int64_t in_channels,
              int tile);

  void Run(const Winograd3x3Shape& shape, const float* x, float* y) const;

  // The bytes of the transformed weight and bias.
  size_t PreparedBytes() const;

  // The transformed weight and the layout the loops read (for them alone).
  struct Weights {
    int tile;                                       // M
    int64_t in_channels, out_channels, padded_out;  // padded_out: K rounded up to 16
    // [(M + 2)^2][padded_out / 16][in_channels][16]: G g G^T at each
    // position of the input tile, in panels of 16 output channels (zero
    // past K).
    std::vector<float> panels;
    std::vector<float> bias;  // padded_out values (zeros without a bias)
  };

 private:
  Weights weights_;
};

// The kernels of one weight for each tile, each made at its first use (from
// any thread): what a convolution kernel holds. Their transformed weights
// are counted in the prepared weights of the KernelCacheAccount it was made
// under (execution/kernel_caches.h).
class Winograd3x3ByTile {
 public:
  // `weight` and `bias` as Winograd3x3's; they must outlive the object.
  Winograd3x3ByTile(const float* weight, const float* bias, int64_t out_channels,
                    int64_t in_channels);
  ~Winograd3x3ByTile();
  Winograd3x3ByTile(const Winograd3x3ByTile&) = delete;
  Winograd3x3ByTile& operator=(const Winograd3x3ByTile&) = delete;
  const Winograd3x3& ForTile(int tile);

 private:
  const std::shared_ptr<KernelCacheAccount> account_;
  const float* weight_;
  const float* bias_;
  const int64_t out_channels_, in_channels_;
  std::once_flag once_[2];
  std::optional<Winograd3x3> kernels_[2];  // tiles 2 and 4
};

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_CONV_WINOGRAD_3X3_H_
