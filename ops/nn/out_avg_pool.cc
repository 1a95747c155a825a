// Out-variant kernel for aten::avg_pool2d. ATen's kernel for NCHW images
// computes one output at a time (1.5 ms for densenet121's 1x256x56x56 2x2
// pool); this one computes eight (four for double) output columns at a
// time where the window lies inside the row and the stride is 1 or 2, in
// vectors compiled for the machine it runs on, and the rest one at a time,
// each output as ATen 1.13 does: the window's values summed in the input's
// dtype, rows then columns, divided by ATen's divisor, added to zero: the
// same bits. Channels-last images (ATen's vectorized kernel), other dtypes,
// and arguments ATen may reject run ATen's op, which gives its result or
// error.
#include <algorithm>
#include <array>
#include <optional>
#include <vector>

#include "ATen/ATen.h"
#include "ATen/CPUFunctions.h"
#include "ATen/native/Pool.h"
#include "ops/core/out_variant.h"
#include "ops/core/per_isa.h"
#include "ops/core/vec32.h"
#include "ops/nn/pool_arguments.h"

namespace static_runtime {
namespace {

using ops::LoadStrided32;
using ops::Splat32;
using ops::Store32;
using ops::Vec32;

struct Pool {
  int64_t planes, height, width, out_height, out_width;
  int64_t kernel[2], stride[2], padding[2];
  bool count_include_pad;
  c10::optional<int64_t> divisor;
};

// avg_pool2d's arguments after the image, read from the node once.
struct Arguments {
  std::vector<int64_t> kernel, stride, padding;
  bool ceil_mode, count_include_pad;
  c10::optional<int64_t> divisor;
};

// The pool when this kernel computes it (a non-empty contiguous NCHW or CHW
// float/double image and arguments ATen accepts), else nullopt.
std::optional<Pool> Plan(const at::Tensor& self, const Arguments& args) {
  if ((self.dim() != 3 && self.dim() != 4) || self.numel() == 0 || !self.is_contiguous() ||
      (self.scalar_type() != at::kFloat && self.scalar_type() != at::kDouble) ||
      self.layout() != at::kStrided || self.is_neg()) {
    return std::nullopt;
  }
  const auto kernel = ops::PoolPair(args.kernel, std::nullopt);
  if (!kernel) return std::nullopt;
  const auto stride = ops::PoolPair(args.stride, kernel);
  const auto padding = ops::PoolPair(args.padding, std::nullopt);
  if (!stride || !padding) return std::nullopt;
  Pool p;
  p.count_include_pad = args.count_include_pad;
  p.divisor = args.divisor;
  if (p.divisor && *p.divisor == 0) return std::nullopt;
  p.planes = self.numel() / (self.size(-1) * self.size(-2));
  p.height = self.size(-2);
  p.width = self.size(-1);
  for (int i = 0; i < 2; ++i) {
    p.kernel[i] = (*kernel)[i];
    p.stride[i] = (*stride)[i];
    p.padding[i] = (*padding)[i];
    if (p.kernel[i] <= 0 || p.stride[i] <= 0 || p.padding[i] < 0 ||
        p.padding[i] > p.kernel[i] / 2) {
      return std::nullopt;
    }
  }
  p.out_height = at::native::pooling_output_shape<int64_t>(p.height, p.kernel[0], p.padding[0],
                                                           p.stride[0], 1, args.ceil_mode);
  p.out_width = at::native::pooling_output_shape<int64_t>(p.width, p.kernel[1], p.padding[1],
                                                          p.stride[1], 1, args.ceil_mode);
  if (p.out_height <= 0 || p.out_width <= 0) return std::nullopt;
  return p;
}

template <typename T>
__attribute__((always_inline)) inline void AvgPoolContiguousImpl(const T* in, T* out,
                                                                 const Pool& p) {
  constexpr int kLanes = Vec32<T>::kLanes;
  const T* const in_end = in + p.planes * p.height * p.width;
  // Output columns [inner_begin, inner_end) have every window column inside the row.
  const int64_t inner_begin = (p.padding[1] + p.stride[1] - 1) / p.stride[1];
  const int64_t last_start = p.width + p.padding[1] - p.kernel[1];
  const int64_t inner_end =
      last_start < 0 ? 0 : std::min(p.out_width, last_start / p.stride[1] + 1);
  const bool vectorized =
      (p.stride[1] == 1 || p.stride[1] == 2) && inner_end - inner_begin >= kLanes;
  for (int64_t plane = 0; plane < p.planes; ++plane) {
    const T* image = in + plane * p.height * p.width;
    for (int64_t oh = 0; oh < p.out_height; ++oh, out += p.out_width) {
      const int64_t h_start = oh * p.stride[0] - p.padding[0];
      const int64_t h_stop = std::min(h_start + p.kernel[0], p.height + p.padding[0]);
      const int64_t h_begin = std::max<int64_t>(h_start, 0);
      const int64_t h_end = std::min(h_stop, p.height);
      // ATen's arithmetic for output column `ow`.
      auto one = [&](int64_t ow) __attribute__((always_inline)) {
        const int64_t w_start = ow * p.stride[1] - p.padding[1];
        const int64_t w_stop = std::min(w_start + p.kernel[1], p.width + p.padding[1]);
        const int64_t w_begin = std::max<int64_t>(w_start, 0);
        const int64_t w_end = std::min(w_stop, p.width);
        out[ow] = 0;
        if (h_begin >= h_end || w_begin >= w_end) return;
        const int64_t divide_factor = p.divisor ? *p.divisor
                                      : p.count_include_pad
                                          ? (h_stop - h_start) * (w_stop - w_start)
                                          : (h_end - h_begin) * (w_end - w_begin);
        T sum = 0;
        for (int64_t ih = h_begin; ih < h_end; ++ih) {
          for (int64_t iw = w_begin; iw < w_end; ++iw) sum += image[ih * p.width + iw];
        }
        out[ow] += static_cast<T>(sum / divide_factor);
      };
      if (!vectorized || h_begin >= h_end) {
        for (int64_t ow = 0; ow < p.out_width; ++ow) one(ow);
        continue;
      }
      // Inside the row every window spans the whole kernel width.
      const T divide_factor = static_cast<T>(
          p.divisor ? *p.divisor
                    : (p.count_include_pad ? h_stop - h_start : h_end - h_begin) * p.kernel[1]);
      // Outputs [first, first + kLanes) at once; false when a stride-2 load
      // would read past the input.
      auto lanes = [&](int64_t first) __attribute__((always_inline)) {
        const int64_t offset = first * p.stride[1] - p.padding[1];
        if (p.stride[1] == 2 &&
            image + (h_end - 1) * p.width + offset + p.kernel[1] - 1 + 2 * kLanes > in_end) {
          return false;
        }
        typename Vec32<T>::Type sum = Splat32<T>(0);
        for (int64_t ih = h_begin; ih < h_end; ++ih) {
          const T* row = image + ih * p.width + offset;
          for (int64_t kw = 0; kw < p.kernel[1]; ++kw) sum += LoadStrided32(row + kw, p.stride[1]);
        }
        Store32(out + first, Splat32<T>(0) + sum / divide_factor);
        return true;
      };
      ops::ForRowInGroups(p.out_width, inner_begin, inner_end, kLanes, one, lanes);
    }
  }
}

STATIC_RUNTIME_PER_ISA void AvgPoolContiguous(const float* in, float* out, const Pool& p) {
  AvgPoolContiguousImpl(in, out, p);
}
STATIC_RUNTIME_PER_ISA void AvgPoolContiguous(const double* in, double* out, const Pool& p) {
  AvgPoolContiguousImpl(in, out, p);
}

void AvgPool2d(NodeIO& io) {
  const at::Tensor& self = TensorArg(io, 0);
  const Arguments a{io.Input(1).toIntVector(), io.Input(2).toIntVector(),
                    io.Input(3).toIntVector(), io.Input(4).toBool(),
                    io.Input(5).toBool(),      io.Input(6).toOptional<int64_t>()};
  const std::optional<Pool> pool = Plan(self, a);
  WriteOutput(
      io, 0, self.scalar_type(),
      [&] {
        return at::avg_pool2d(self, a.kernel, a.stride, a.padding, a.ceil_mode, a.count_include_pad,
                              a.divisor);
      },
      [&](at::Tensor& out) {
        if (pool) {
          std::vector<int64_t> sizes(self.sizes().begin(), self.sizes().end() - 2);
          sizes.push_back(pool->out_height);
          sizes.push_back(pool->out_width);
          if (!out.sizes().equals(sizes)) out.resize_(sizes);
          if (out.is_contiguous()) {
            AT_DISPATCH_FLOATING_TYPES(self.scalar_type(), "avg_pool2d", [&] {
              AvgPoolContiguous(self.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), *pool);
            });
            return;
          }
        }
        at::cpu::avg_pool2d_out(out, self, a.kernel, a.stride, a.padding, a.ceil_mode,
                                a.count_include_pad, a.divisor);
      });
}

}  // namespace

void RegisterOutAvgPoolKernels(KernelRegistry& registry) {
  registry.Add(OutVariant("aten::avg_pool2d", "", AvgPool2d));
}

}  // namespace static_runtime
