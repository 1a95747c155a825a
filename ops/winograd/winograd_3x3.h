// A 3 x 3, stride-1, dilation-1, one-group convolution between dense
// channels-last (NHWC) float32 tensors by Winograd's minimal filtering
// F(2x2, 3x3), for CPUs with AVX2 and FMA, where oneDNN has no Winograd
// kernel (it has them for AVX-512 only). Each 2 x 2 block of outputs comes
// from the 4 x 4 input tile around it: the tile and the weight are
// transformed (B^T d B, G g G^T), multiplied elementwise and summed over the
// input channels (16 matrix products of [tiles, C] by [C, K], 2.25x fewer
// multiplications than the direct convolution), and transformed back
// (A^T m A), plus the bias.
//
// Contract: x [batch, height, width, C] and y [batch, out_height,
// out_width, K] dense, not overlapping, any channel counts; the input is
// read as zero outside [0, height) x [0, width), so any padding (top and
// left given, bottom and right implied by the output size) is taken. Results differ from the direct
// convolution's in the last bits: a tile's error grows with the largest input of the tile, within
// ops::Conv2dFusedErrorBound's bound for Winograd shapes (ops/error_bounds.h). A steady-state call
// allocates nothing (per-thread buffers); an object may be used from several threads at once.
#ifndef STATIC_RUNTIME_OPS_WINOGRAD_WINOGRAD_3X3_H_
#define STATIC_RUNTIME_OPS_WINOGRAD_WINOGRAD_3X3_H_

#include <cstdint>
#include <vector>

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
  // Whether a convolution of these channels (images of these many outputs)
  // should run it on this CPU: AVX2 without AVX-512 (oneDNN's own Winograd
  // kernels, for AVX-512, are preferred there), at least 64 channels of
  // each, and at least 4 x 4 outputs: where it took 0.47-0.94 of the
  // time of oneDNN's direct kernel (no less below 64 channels;
  // //ops/winograd:winograd_benchmark, docs/convolutions.md).
  static bool Preferred(int64_t in_channels, int64_t out_channels);
  static bool Preferred(int64_t in_channels, int64_t out_channels, int64_t out_height,
                        int64_t out_width);

  // `weight`: [out_channels, in_channels, 3, 3] (OIHW) contiguous, at least
  // one channel of each; `bias`: out_channels values or nullptr. Both are
  // transformed or copied here.
  Winograd3x3(const float* weight, const float* bias, int64_t out_channels, int64_t in_channels);

  void Run(const Winograd3x3Shape& shape, const float* x, float* y) const;

  // The transformed weight and the layout the loops read (for them alone).
  struct Weights {
    int64_t in_channels, out_channels, padded_out;  // padded_out: K rounded up to 16
    // [16][padded_out / 16][in_channels][16]: G g G^T at each of the 16
    // tile positions, in panels of 16 output channels (zero past K).
    std::vector<float> panels;
    std::vector<float> bias;  // padded_out values (zeros without a bias)
  };

 private:
  Weights weights_;
};

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_WINOGRAD_WINOGRAD_3X3_H_
