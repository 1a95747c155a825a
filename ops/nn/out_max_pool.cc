// Out-variant kernel for aten::max_pool2d. ATen's CPU kernels always compute
// the argmax indices too (max_pool2d calls max_pool2d_with_indices), and its
// NCHW kernel is scalar: 5.9 ms for 1x64x112x112 (3x3/2) where its NHWC
// kernel takes 0.55 ms. Our convolutions hand channels-last images to the
// pools that follow them (ops/core/channels_last.h); this kernel takes those
// eight channels at a time, and NCHW ones eight output columns at a time
// (strides 1 and 2), in vectors compiled for the machine it runs on; no
// indices. It visits each window in ATen's order (rows, then columns) and
// keeps the first maximum, with NaN winning, as ATen's kernels do: its
// results are bit-identical to ATen's, in ATen's layout (channels-last in,
// channels-last out). Other dtypes than float32/float64, empty images and
// arguments ATen rejects run ATen's functional op, which gives its own
// result or error.
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "ATen/ATen.h"
#include "ATen/native/Pool.h"
#include "ops/core/out_variant.h"
#include "ops/core/per_isa.h"
#include "ops/core/vec32.h"
#include "ops/nn/pool_arguments.h"

namespace static_runtime {
namespace {

struct Window {
  int64_t size, stride, padding, dilation;
};

// The two windows (height, width) when ATen would accept them; nullopt
// otherwise, so that ATen reports the problem.
std::optional<std::array<Window, 2>> Windows(const NodeIO& io) {
  const auto kernel = ops::PoolPair(io.Input(1).toIntVector(), std::nullopt);
  if (!kernel) return std::nullopt;
  const auto stride = ops::PoolPair(io.Input(2).toIntVector(), kernel);
  const auto padding = ops::PoolPair(io.Input(3).toIntVector(), std::nullopt);
  const auto dilation = ops::PoolPair(io.Input(4).toIntVector(), std::nullopt);
  if (!stride || !padding || !dilation) return std::nullopt;
  std::array<Window, 2> windows;
  for (int i = 0; i < 2; ++i) {
    windows[i] = {(*kernel)[i], (*stride)[i], (*padding)[i], (*dilation)[i]};
    const Window& w = windows[i];
    if (w.size <= 0 || w.stride <= 0 || w.dilation <= 0 || w.padding < 0 ||
        w.padding > w.size / 2) {
      return std::nullopt;
    }
  }
  return windows;
}

int64_t OutputSize(int64_t input, const Window& w, bool ceil_mode) {
  return at::native::pooling_output_shape<int64_t>(input, w.size, w.padding, w.stride, w.dilation,
                                                   ceil_mode);
}

using ops::Load32;
using ops::LoadStrided32;
using ops::Splat32;
using ops::Store32;
using ops::Vec32;

// ATen's rule, lane by lane: `v` replaces the running maximum when greater
// or NaN; ties keep the earlier value.
template <typename T>
__attribute__((always_inline)) inline typename Vec32<T>::Type Take(typename Vec32<T>::Type max,
                                                                   typename Vec32<T>::Type v) {
  const auto is_nan = v != v;  // NOLINT(misc-redundant-expression): the lane-wise NaN test
  return (v > max) | is_nan ? v : max;
}
template <typename T>
__attribute__((always_inline)) inline T Take(T max, T v) {
  return (v > max || std::isnan(v)) ? v : max;
}

// The window of output position `o` along one dimension: the first input
// index inside the image and one past the last.
std::pair<int64_t, int64_t> Range(int64_t o, const Window& w, int64_t input) {
  int64_t begin = o * w.stride - w.padding;
  const int64_t end = std::min(begin + (w.size - 1) * w.dilation + 1, input);
  while (begin < 0) begin += w.dilation;
  return {begin, end};
}

struct Geometry {
  int64_t batch, channels, height, width, out_height, out_width;
  std::array<Window, 2> windows;
};

// NHWC: each output pixel is the lane-wise max of its window's pixels,
// 32 (16) channels at a time, then eight (four), in ATen's visiting order.
template <typename T>
__attribute__((always_inline)) inline void MaxPoolChannelsLastImpl(const T* in, T* out,
                                                                   const Geometry& g) {
  constexpr int kLanes = Vec32<T>::kLanes;
  const int64_t channels = g.channels;
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t oh = 0; oh < g.out_height; ++oh) {
      const auto [h_begin, h_end] = Range(oh, g.windows[0], g.height);
      for (int64_t ow = 0; ow < g.out_width; ++ow, out += channels) {
        const auto [w_begin, w_end] = Range(ow, g.windows[1], g.width);
        auto pixel = [&](int64_t ih, int64_t iw) __attribute__((always_inline)) {
          return in + ((n * g.height + ih) * g.width + iw) * channels;
        };
        int64_t c = 0;
        // Four vectors of channels at once: each tap's compare-and-blend
        // waits on the one before it in the same lanes, so one vector alone
        // runs at the latency of that chain (twice as slow, measured).
        // (Four named variables: GCC keeps an array of them in memory.)
        for (; c + 4 * kLanes <= channels; c += 4 * kLanes) {
          typename Vec32<T>::Type max0 = Splat32(-std::numeric_limits<T>::infinity());
          typename Vec32<T>::Type max1 = max0, max2 = max0, max3 = max0;
          for (int64_t ih = h_begin; ih < h_end; ih += g.windows[0].dilation) {
            for (int64_t iw = w_begin; iw < w_end; iw += g.windows[1].dilation) {
              const T* p = pixel(ih, iw) + c;
              max0 = Take<T>(max0, Load32(p));
              max1 = Take<T>(max1, Load32(p + kLanes));
              max2 = Take<T>(max2, Load32(p + 2 * kLanes));
              max3 = Take<T>(max3, Load32(p + 3 * kLanes));
            }
          }
          Store32(out + c, max0);
          Store32(out + c + kLanes, max1);
          Store32(out + c + 2 * kLanes, max2);
          Store32(out + c + 3 * kLanes, max3);
        }
        for (; c + kLanes <= channels; c += kLanes) {
          typename Vec32<T>::Type max = Splat32(-std::numeric_limits<T>::infinity());
          for (int64_t ih = h_begin; ih < h_end; ih += g.windows[0].dilation) {
            for (int64_t iw = w_begin; iw < w_end; iw += g.windows[1].dilation) {
              max = Take<T>(max, Load32(pixel(ih, iw) + c));
            }
          }
          Store32(out + c, max);
        }
        for (; c < channels; ++c) {
          T max = -std::numeric_limits<T>::infinity();
          for (int64_t ih = h_begin; ih < h_end; ih += g.windows[0].dilation) {
            for (int64_t iw = w_begin; iw < w_end; iw += g.windows[1].dilation) {
              max = Take(max, pixel(ih, iw)[c]);
            }
          }
          out[c] = max;
        }
      }
    }
  }
}

// NCHW: each output is the max of its window in ATen's visiting order (rows,
// then columns). Output columns whose window lies inside the row are
// computed eight (four) at a time when the horizontal stride is 1 or 2; the
// others, and other strides, one at a time.
template <typename T>
__attribute__((always_inline)) inline void MaxPoolContiguousImpl(const T* in, T* out,
                                                                 const Geometry& g) {
  constexpr int kLanes = Vec32<T>::kLanes;
  const Window& wh = g.windows[0];
  const Window& ww = g.windows[1];
  const T* const in_end = in + g.batch * g.channels * g.height * g.width;
  // Output columns [inner_begin, inner_end) have every window column inside the row.
  const int64_t inner_begin = (ww.padding + ww.stride - 1) / ww.stride;
  const int64_t last_start = g.width - 1 + ww.padding - (ww.size - 1) * ww.dilation;
  const int64_t inner_end = last_start < 0 ? 0 : std::min(g.out_width, last_start / ww.stride + 1);
  const bool vectorized = (ww.stride == 1 || ww.stride == 2) && inner_end - inner_begin >= kLanes;
  for (int64_t plane = 0; plane < g.batch * g.channels; ++plane) {
    const T* image = in + plane * g.height * g.width;
    for (int64_t oh = 0; oh < g.out_height; ++oh, out += g.out_width) {
      const std::pair<int64_t, int64_t> rows = Range(oh, wh, g.height);
      const int64_t h_begin = rows.first, h_end = rows.second;
      auto one = [&](int64_t ow) __attribute__((always_inline)) {
        const auto [w_begin, w_end] = Range(ow, ww, g.width);
        T max = -std::numeric_limits<T>::infinity();
        for (int64_t ih = h_begin; ih < h_end; ih += wh.dilation) {
          for (int64_t iw = w_begin; iw < w_end; iw += ww.dilation) {
            max = Take(max, image[ih * g.width + iw]);
          }
        }
        out[ow] = max;
      };
      // Outputs [first, first + kLanes) at once; false when a stride-2 load
      // would read past the input.
      auto lanes = [&](int64_t first) __attribute__((always_inline)) {
        const int64_t offset = first * ww.stride - ww.padding;
        if (ww.stride == 2 &&
            image + (h_end - 1) * g.width + offset + (ww.size - 1) * ww.dilation + 2 * kLanes >
                in_end) {
          return false;
        }
        typename Vec32<T>::Type max = Splat32(-std::numeric_limits<T>::infinity());
        for (int64_t ih = h_begin; ih < h_end; ih += wh.dilation) {
          const T* row = image + ih * g.width + offset;
          for (int64_t kw = 0; kw < ww.size; ++kw) {
            const T* p = row + kw * ww.dilation;
            max = Take<T>(max, LoadStrided32(p, ww.stride));
          }
        }
        Store32(out + first, max);
        return true;
      };
      if (!vectorized) {
        for (int64_t ow = 0; ow < g.out_width; ++ow) one(ow);
        continue;
      }
      ops::ForRowInGroups(g.out_width, inner_begin, inner_end, kLanes, one, lanes);
    }
  }
}

#define STATIC_RUNTIME_MAX_POOL_CLONES(T)                                                   \
  STATIC_RUNTIME_PER_ISA void MaxPoolChannelsLast(const T* in, T* out, const Geometry& g) { \
    MaxPoolChannelsLastImpl(in, out, g);                                                    \
  }                                                                                         \
  STATIC_RUNTIME_PER_ISA void MaxPoolContiguous(const T* in, T* out, const Geometry& g) {   \
    MaxPoolContiguousImpl(in, out, g);                                                      \
  }
STATIC_RUNTIME_MAX_POOL_CLONES(float)
STATIC_RUNTIME_MAX_POOL_CLONES(double)
#undef STATIC_RUNTIME_MAX_POOL_CLONES

void MaxPool2d(NodeIO& io) {
  const at::Tensor& self = TensorArg(io, 0);
  const bool ceil_mode = io.Input(5).toBool();
  const auto windows = Windows(io);
  std::optional<Geometry> geometry;
  if (windows && (self.dim() == 3 || self.dim() == 4) && self.numel() > 0 &&
      (self.scalar_type() == at::kFloat || self.scalar_type() == at::kDouble)) {
    const bool batched = self.dim() == 4;
    Geometry g{
        batched ? self.size(0) : 1, self.size(-3), self.size(-2), self.size(-1), 0, 0, *windows};
    g.out_height = OutputSize(g.height, g.windows[0], ceil_mode);
    g.out_width = OutputSize(g.width, g.windows[1], ceil_mode);
    if (g.out_height > 0 && g.out_width > 0) geometry = g;
  }
  const auto functional = [&] {
    return at::max_pool2d(self, io.Input(1).toIntVector(), io.Input(2).toIntVector(),
                          io.Input(3).toIntVector(), io.Input(4).toIntVector(), ceil_mode);
  };
  if (!geometry) {  // ATen's result or error
    io.Output(0) = functional();
    return;
  }
  WriteOutput(io, 0, self.scalar_type(), functional, [&](at::Tensor& out) {
    // ATen's layout: channels-last in, channels-last out.
    const at::MemoryFormat format = self.suggest_memory_format();
    const at::Tensor input = self.contiguous(format);
    std::vector<int64_t> sizes = {geometry->out_height, geometry->out_width};
    sizes.insert(sizes.begin(), self.sizes().begin(), self.sizes().end() - 2);
    at::native::resize_(out, sizes, format);
    AT_DISPATCH_FLOATING_TYPES(self.scalar_type(), "max_pool2d", [&] {
      if (format == at::MemoryFormat::ChannelsLast) {
        MaxPoolChannelsLast(input.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), *geometry);
      } else {
        MaxPoolContiguous(input.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), *geometry);
      }
    });
  });
}

}  // namespace

void RegisterOutMaxPoolKernels(KernelRegistry& registry) {
  registry.Add(OutVariant("aten::max_pool2d", "", MaxPool2d));
}

}  // namespace static_runtime
