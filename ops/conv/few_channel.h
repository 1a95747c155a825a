// A 1D convolution from a few input channels on NCW float signals (a raw
// waveform's first layer: conv1d(1 -> 512, kernel 10, stride 5) in
// wav2vec2-style encoders, kernel 16 stride 8 in Conv-TasNet's encoder):
// for each image n, output channel o and position l,
//   y[n, o, l] = bias[o] + sum_{c, k} w[o, c, k] * x[n, c, l * stride + k * dilation - padding]
// with x zero outside [0, width). The in_channels * kernel taps are added
// in order (c, k) = (0, 0), (0, 1), ... after the bias (another order than
// ATen's convolution: callers declare the error bound of a reordered sum).
// Written straight into the NCW result, which oneDNN's kernels for these
// shapes produce only channels-last (a transposing reorder that costs more
// than the convolution). x and y are contiguous; w is [out_channels,
// in_channels, kernel] contiguous; bias may be null (zero).
#ifndef STATIC_RUNTIME_OPS_CONV_FEW_CHANNEL_H_
#define STATIC_RUNTIME_OPS_CONV_FEW_CHANNEL_H_

#include <cstdint>

namespace static_runtime {
namespace ops {

// The most in_channels * kernel taps FewChannelConv1d takes.
constexpr int64_t kFewChannelConv1dMaxTaps = 64;

struct FewChannelConv1dShape {
  int64_t batch, in_channels, width;  // of x
  int64_t out_channels, kernel, stride, dilation, padding;
  int64_t out_width;  // (width + 2 padding - dilation (kernel - 1) - 1) / stride + 1
};

// Requires in_channels * kernel <= kFewChannelConv1dMaxTaps.
void FewChannelConv1d(const FewChannelConv1dShape& shape, const float* x, const float* w,
                      const float* bias, float* y);

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_CONV_FEW_CHANNEL_H_
