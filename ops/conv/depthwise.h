// A depthwise 1D convolution on NCW float signals (conv1d with groups equal
// to the channels and one filter per channel, as audio separation and
// speech models stack them, dilated): for each image n, channel c and
// position l,
//   y[n, c, l] = bias[c] + sum_k w[c, k] * x[n, c, l * stride + k * dilation - padding]
// with x zero outside [0, width). The taps are added in order k = 0, 1, ...
// (another order than ATen's convolution: callers declare the error bound
// of a reordered sum). x and y are contiguous; w is [channels, kernel]
// contiguous; bias may be null (zero).
#ifndef STATIC_RUNTIME_OPS_CONV_DEPTHWISE_H_
#define STATIC_RUNTIME_OPS_CONV_DEPTHWISE_H_

#include <cstdint>

namespace static_runtime {
namespace ops {

struct DepthwiseConv1dShape {
  int64_t batch, channels, width;  // of x
  int64_t kernel, stride, dilation, padding;
  int64_t out_width;  // (width + 2 padding - dilation (kernel - 1) - 1) / stride + 1
};

void DepthwiseConv1d(const DepthwiseConv1dShape& shape, const float* x, const float* w,
                     const float* bias, float* y);

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_CONV_DEPTHWISE_H_
