#include "ops/conv/conv_error_bounds.h"

#include <algorithm>

#include "c10/util/accumulate.h"
#include "ops/core/error_bounds.h"

namespace static_runtime {
namespace ops {

bool WinogradShape(at::IntArrayRef weight_sizes, at::IntArrayRef stride, at::IntArrayRef dilation,
                   int64_t groups) {
  const auto all_ones = [](at::IntArrayRef values) {
    return std::all_of(values.begin(), values.end(), [](int64_t v) { return v == 1; });
  };
  const size_t dims = weight_sizes.size();
  return groups == 1 && (dims == 4 || (dims == 5 && weight_sizes[2] == 1)) &&
         weight_sizes[dims - 2] == 3 && weight_sizes[dims - 1] == 3 && all_ones(stride) &&
         all_ones(dilation);
}

at::Tensor Conv2dFusedErrorBound(const std::vector<c10::IValue>& inputs, const at::Tensor& exact) {
  const at::Tensor weight = inputs[1].toTensor();
  const std::vector<int64_t> stride = inputs[3].toIntVector(), padding = inputs[4].toIntVector(),
                             dilation = inputs[5].toIntVector();
  const int64_t groups = inputs[6].toInt();
  at::Tensor magnitude;
  if (WinogradShape(weight.sizes(), stride, dilation, groups)) {
    // Every input element of a tile of up to 4 x 4 outputs (6 x 6 inputs)
    // enters each output of the tile: the largest |x| of a channel over the
    // 9 x 9 window that holds every tile an output can be in, times the sum
    // of that channel's |w|.
    const int64_t py = padding[0], px = padding.size() > 1 ? padding[1] : py;
    const at::Tensor window_max = at::max_pool2d(
        at::constant_pad_nd(*Magnitude(inputs[0]), {px + 3, px + 3, py + 3, py + 3}), {9, 9}, 1);
    magnitude = at::conv2d(window_max, Magnitude(inputs[1])->sum({2, 3}, /*keepdim=*/true),
                           Magnitude(inputs[2]));
  } else {
    magnitude = at::conv2d(*Magnitude(inputs[0]), *Magnitude(inputs[1]), Magnitude(inputs[2]),
                           stride, padding, dilation, groups);
  }
  if (c10::optional<at::Tensor> residual = Magnitude(inputs[7])) {
    magnitude = magnitude + *residual;
  }
  return SumBound(magnitude, weight.size(1) * weight.size(2) * weight.size(3),
                  inputs[8].toStringRef(), exact);
}

at::Tensor ConvTransposeErrorBound(const std::vector<c10::IValue>& inputs,
                                   const at::Tensor& exact) {
  const at::Tensor x = *Magnitude(inputs[0]), w = *Magnitude(inputs[1]);
  const c10::optional<at::Tensor> bias = Magnitude(inputs[2]);
  const std::vector<int64_t> stride = inputs[3].toIntVector(), padding = inputs[4].toIntVector(),
                             output_padding = inputs[5].toIntVector(),
                             dilation = inputs[7].toIntVector();
  const int64_t groups = inputs[6].toInt();
  const at::Tensor magnitude =
      w.dim() == 3
          ? at::conv_transpose1d(x, w, bias, stride, padding, output_padding, groups, dilation)
          : at::conv_transpose2d(x, w, bias, stride, padding, output_padding, groups, dilation);
  const int64_t length = w.size(0) / groups * c10::multiply_integers(w.sizes().slice(2));
  return SumBound(magnitude, length, "none", exact);
}

at::Tensor Conv3dErrorBound(const std::vector<c10::IValue>& inputs, const at::Tensor& exact) {
  const at::Tensor x = *Magnitude(inputs[0]), w = *Magnitude(inputs[1]);
  const c10::optional<at::Tensor> bias = Magnitude(inputs[2]);
  const std::vector<int64_t> stride = inputs[3].toIntVector(), dilation = inputs[5].toIntVector();
  const int64_t groups = inputs[6].toInt();
  at::Tensor magnitude;
  if (WinogradShape(w.sizes(), stride, dilation, groups)) {
    // A (1, 3, 3) convolution, which may run as a 2D Winograd one on each
    // frame: Conv2dFusedErrorBound's window maxima, frame by frame.
    std::vector<int64_t> padding = {0, 1, 1};  // "same"
    if (!inputs[4].isString()) {
      padding = inputs[4].toIntVector();
      if (padding.size() == 1) padding.assign(3, padding[0]);
    } else if (inputs[4].toStringRef() == "valid") {
      padding = {0, 0, 0};
    }
    const at::Tensor window_max =
        at::max_pool3d(at::constant_pad_nd(x, {padding[2] + 3, padding[2] + 3, padding[1] + 3,
                                               padding[1] + 3, padding[0], padding[0]}),
                       {1, 9, 9}, 1);
    magnitude = at::conv3d(window_max, w.sum({3, 4}, /*keepdim=*/true), bias);
  } else {
    magnitude = inputs[4].isString()
                    ? at::conv3d(x, w, bias, stride, inputs[4].toStringRef(), dilation, groups)
                    : at::conv3d(x, w, bias, stride, inputs[4].toIntVector(), dilation, groups);
  }
  return SumBound(magnitude, w.size(1) * c10::multiply_integers(w.sizes().slice(2)), "none", exact);
}

}  // namespace ops
}  // namespace static_runtime
