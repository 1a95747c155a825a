// Out-variant kernel for aten::max_pool2d. ATen's CPU kernels always compute
// the argmax indices too (max_pool2d calls max_pool2d_with_indices), and its
// NCHW kernel is scalar: 5.9 ms for 1x64x112x112 (3x3/2) where its NHWC
// kernel takes 0.55 ms. Our convolutions hand channels-last images to the
// pools that follow them (ops/channels_last.h), so this kernel takes
// channels-last images with a loop over channels, vectorized for the machine
// it runs on, and NCHW ones plane by plane; no indices. It visits each window
// in ATen's order (rows, then columns) and keeps the first maximum, with NaN
// winning, as ATen's kernels do: its results are bit-identical to ATen's, in
// ATen's layout (channels-last in, channels-last out). Other dtypes than
// float32/float64, empty images and arguments ATen rejects run ATen's
// functional op, which gives its own result or error.
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "ATen/ATen.h"
#include "ATen/native/Pool.h"
#include "ops/out_variant.h"

namespace static_runtime {
namespace {

struct Window {
  int64_t size, stride, padding, dilation;
};

// max_pool2d's int[2] arguments: one value for both dimensions, or two.
// `fallback` stands in for an empty list (stride defaults to kernel_size).
std::optional<std::vector<int64_t>> Pair(const c10::IValue& value,
                                         const std::vector<int64_t>& fallback) {
  std::vector<int64_t> list = value.toIntVector();
  if (list.empty()) list = fallback;
  if (list.size() == 1) list.push_back(list[0]);
  if (list.size() != 2) return std::nullopt;
  return list;
}

// The two windows (height, width) when ATen would accept them; nullopt
// otherwise, so that ATen reports the problem.
std::optional<std::array<Window, 2>> Windows(const NodeIO& io) {
  const auto kernel = Pair(io.Input(1), {});
  if (!kernel) return std::nullopt;
  const auto stride = Pair(io.Input(2), *kernel);
  const auto padding = Pair(io.Input(3), {});
  const auto dilation = Pair(io.Input(4), {});
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

// out[i] = max(out[i], in[i * stride]) over `count`, NaN winning, ties keeping
// out (ATen's rule). Inlined with a literal stride, the loop vectorizes.
template <typename T>
__attribute__((always_inline)) inline void MaxLoop(T* __restrict out, const T* __restrict in,
                                                   int64_t count, int64_t stride) {
  for (int64_t i = 0; i < count; ++i) {
    const T value = in[i * stride];
    out[i] = (value > out[i] || std::isnan(value)) ? value : out[i];
  }
}

// MaxLoop for the machine it runs on; strides 1 (channels of NHWC pixels) and
// 2 (the common pools over NCHW rows) get vectorized loops.
template <typename T>
__attribute__((always_inline)) inline void MaxIntoImpl(T* __restrict out, const T* __restrict in,
                                                       int64_t count, int64_t stride) {
  if (stride == 1) return MaxLoop(out, in, count, 1);
  if (stride == 2) return MaxLoop(out, in, count, 2);
  MaxLoop(out, in, count, stride);
}
__attribute__((target_clones("avx512f", "avx2", "default"))) void MaxInto(
    float* __restrict out, const float* __restrict in, int64_t count, int64_t stride) {
  MaxIntoImpl(out, in, count, stride);
}
__attribute__((target_clones("avx512f", "avx2", "default"))) void MaxInto(
    double* __restrict out, const double* __restrict in, int64_t count, int64_t stride) {
  MaxIntoImpl(out, in, count, stride);
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

// NHWC: each output pixel is the elementwise max of its window's pixels,
// vectorized over the channels.
template <typename T>
void MaxPoolChannelsLast(const T* in, T* out, const Geometry& g) {
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t oh = 0; oh < g.out_height; ++oh) {
      const auto [h_begin, h_end] = Range(oh, g.windows[0], g.height);
      for (int64_t ow = 0; ow < g.out_width; ++ow) {
        const auto [w_begin, w_end] = Range(ow, g.windows[1], g.width);
        T* pixel = out + ((n * g.out_height + oh) * g.out_width + ow) * g.channels;
        std::fill(pixel, pixel + g.channels, -std::numeric_limits<T>::infinity());
        for (int64_t ih = h_begin; ih < h_end; ih += g.windows[0].dilation) {
          for (int64_t iw = w_begin; iw < w_end; iw += g.windows[1].dilation) {
            MaxInto(pixel, in + ((n * g.height + ih) * g.width + iw) * g.channels, g.channels, 1);
          }
        }
      }
    }
  }
}

// NCHW: a row of outputs at a time. For each window row and column offset
// (in ATen's visiting order), every output of the row whose window holds
// that input column takes it in, as a strided max over the input row.
template <typename T>
void MaxPoolContiguous(const T* in, T* out, const Geometry& g) {
  const Window& wh = g.windows[0];
  const Window& ww = g.windows[1];
  for (int64_t plane = 0; plane < g.batch * g.channels; ++plane) {
    const T* image = in + plane * g.height * g.width;
    for (int64_t oh = 0; oh < g.out_height; ++oh, out += g.out_width) {
      std::fill(out, out + g.out_width, -std::numeric_limits<T>::infinity());
      const auto [h_begin, h_end] = Range(oh, wh, g.height);
      for (int64_t ih = h_begin; ih < h_end; ih += wh.dilation) {
        const T* row = image + ih * g.width;
        for (int64_t kw = 0; kw < ww.size; ++kw) {
          // Outputs ow whose input column ow * stride + kw * dilation -
          // padding lies in [0, width).
          const int64_t offset = kw * ww.dilation - ww.padding;
          const int64_t first = offset >= 0 ? 0 : (-offset + ww.stride - 1) / ww.stride;
          const int64_t last = std::min(g.out_width - 1, (g.width - 1 - offset) / ww.stride);
          if (g.width - 1 - offset < 0 || first > last) continue;
          MaxInto(out + first, row + first * ww.stride + offset, last - first + 1, ww.stride);
        }
      }
    }
  }
}

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
    out.resize_(sizes, format);
    AT_DISPATCH_FLOATING_TYPES(self.scalar_type(), "max_pool2d", [&] {
      if (format == at::MemoryFormat::ChannelsLast) {
        MaxPoolChannelsLast(input.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), *geometry);
      } else {
        MaxPoolContiguous(input.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), *geometry);
      }
    });
  });
}

const bool kRegistered = [] {
  RegisterOut("aten::max_pool2d", "", MaxPool2d);
  return true;
}();

}  // namespace
}  // namespace static_runtime
