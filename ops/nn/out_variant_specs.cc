#include "ops/nn/out_variant_specs.h"

#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "ATen/ATen.h"
#include "ops/core/out_variant_spec.h"

namespace static_runtime {
namespace testing {
namespace specs {

std::map<std::string, Spec> NnOutVariantSpecs() {
  std::map<std::string, Spec> specs;
  for (const char* name : {"aten::softmax.int", "aten::log_softmax.int"}) {
    specs[name] = OverDims(kFloats, [](const Call& c, int64_t rank) -> Inputs {
      return {c.Dim(rank), c10::IValue()};
    });
  }
  specs["aten::layer_norm."] = {[](const Call& c) -> Inputs {
    const int64_t rank = c.Rank(1, 3);
    const std::vector<int64_t> shape = c.NonEmptyShape(rank);
    const int64_t normalized = c.draw.Int(1, rank);
    const std::vector<int64_t> normalized_shape(shape.end() - normalized, shape.end());
    const at::ScalarType t = c.draw.OneOf(kFloats);
    auto affine = [&]() {
      return c.draw.Bool() ? c10::IValue() : c10::IValue(c.draw.Tensor(normalized_shape, t));
    };
    return {c.draw.Tensor(shape, t),
            c10::List<int64_t>(normalized_shape),
            affine(),
            affine(),
            1e-5,
            true};
  }};
  // Group norms of rank 2 to 4 with channels a multiple of the groups (and
  // sometimes not: ATen's error), weight and bias optional, sometimes
  // channels-last, doubles and strided inputs (ATen's op runs those).
  specs["aten::group_norm."] = {[](const Call& c) -> Inputs {
    const int64_t rank = c.Rank(2, 4);
    std::vector<int64_t> shape = c.NonEmptyShape(rank);
    const int64_t groups = c.draw.Int(1, 3);
    shape[1] = groups * c.draw.Int(1, 4) + (c.draw.Int(0, 9) == 0 ? 1 : 0);
    const at::ScalarType t = c.draw.Int(0, 4) == 0 ? at::kDouble : at::kFloat;
    at::Tensor x = c.draw.Tensor(shape, t);
    if (rank == 4 && c.draw.Int(0, 3) == 0) x = x.contiguous(at::MemoryFormat::ChannelsLast);
    auto affine = [&]() {
      return c.draw.Bool() ? c10::IValue() : c10::IValue(c.draw.Tensor({shape[1]}, t));
    };
    return {x, groups, affine(), affine(), 1e-5, true};
  }};
  // Instance norms of rank 3 to 5, weight and bias optional (sometimes of
  // the wrong size: ATen's error), doubles, channels-last and strided inputs;
  // sometimes with running statistics (then not use_input_stats, ATen's
  // op), or without input statistics and without running ones (ATen's
  // error).
  specs["aten::instance_norm."] = {[](const Call& c) -> Inputs {
    const int64_t rank = c.Rank(3, 5);
    const std::vector<int64_t> shape = c.NonEmptyShape(rank);
    const at::ScalarType t = c.draw.Int(0, 4) == 0 ? at::kDouble : at::kFloat;
    at::Tensor x = c.draw.Tensor(shape, t);
    if (rank == 4 && c.draw.Int(0, 3) == 0) x = x.contiguous(at::MemoryFormat::ChannelsLast);
    const int64_t channels = shape[1] + (c.draw.Int(0, 19) == 0 ? 1 : 0);
    auto affine = [&]() {
      return c.draw.Bool() ? c10::IValue() : c10::IValue(c.draw.Tensor({channels}, t));
    };
    const int kind = c.draw.Int(0, 9);  // 0: running statistics, 1: none at all
    // ATen writes the mean over the batch of the repeated running statistics
    // back into them, which rounds, and the JIT runs first on the same
    // inputs: quarters, whose sums and means are exact, keep them as drawn.
    auto quarters = [&](double offset) {
      return c10::IValue((c.draw.Tensor({shape[1]}, t).abs() * 4).round() / 4 + offset);
    };
    const c10::IValue running_mean = kind == 0 ? quarters(-1.0) : c10::IValue();
    const c10::IValue running_var = kind == 0 ? quarters(0.5) : c10::IValue();
    return {x, affine(), affine(), running_mean, running_var, kind > 1, 0.1, 1e-5, true};
  }};
  // PReLU with one weight or one per channel (dimension 1), rank 1 to 4,
  // NaN, infinities and signed zeros sometimes; doubles, strided inputs and
  // a weight of the wrong size (ATen's error) too.
  specs["aten::prelu."] = {[](const Call& c) -> Inputs {
    const int64_t rank = c.Rank(1, 4);
    const std::vector<int64_t> shape = c.Shape(rank);
    const at::ScalarType t = c.draw.Int(0, 4) == 0 ? at::kDouble : at::kFloat;
    at::Tensor x = c.draw.Tensor(shape, t);
    if (x.numel() > 0 && c.draw.Int(0, 3) == 0) {
      x.as_strided({1}, {1}).fill_(c.draw.OneOf<double>({NAN, INFINITY, -INFINITY, -0.0, 0.0}));
    }
    const int64_t channels = rank >= 2 ? shape[1] : 1;
    const int64_t weights = c.draw.Bool() ? 1 : channels + (c.draw.Int(0, 9) == 0 ? 1 : 0);
    return {x, c.draw.Tensor({weights}, t)};
  }};
  specs["aten::group_norm."].writes_into_output = [](const Inputs& inputs) {
    const at::Tensor& x = inputs[0].toTensor();
    const auto plain = [&](const c10::IValue& v) {
      return v.isNone() || v.toTensor().is_contiguous();
    };
    return x.numel() > 0 && x.is_contiguous() &&
           x.suggest_memory_format() == at::MemoryFormat::Contiguous &&
           x.size(1) % inputs[1].toInt() == 0 && plain(inputs[2]) && plain(inputs[3]);
  };
  specs["aten::instance_norm."].writes_into_output = [](const Inputs& inputs) {
    const at::Tensor& x = inputs[0].toTensor();
    const auto plain = [&](const c10::IValue& v) {
      return v.isNone() || (v.toTensor().is_contiguous() && v.toTensor().size(0) == x.size(1));
    };
    return x.numel() > 0 && x.is_contiguous() &&
           x.suggest_memory_format() == at::MemoryFormat::Contiguous && plain(inputs[1]) &&
           plain(inputs[2]) && inputs[3].isNone() && inputs[4].isNone() && inputs[5].toBool();
  };
  specs["aten::prelu."].writes_into_output = [](const Inputs& inputs) {
    const at::Tensor& x = inputs[0].toTensor();
    return x.is_contiguous() && x.suggest_memory_format() == at::MemoryFormat::Contiguous &&
           inputs[1].toTensor().is_contiguous();
  };
  // GLU over a dimension of even size (sometimes odd: ATen's error).
  // Nested tensors of [length, width] sequences (lengths 0 to the padded
  // length, one at least 1), float or double, padded with a number float32
  // may round; sometimes an output size larger than the padded form (ATen's
  // op runs).
  specs["aten::to_padded_tensor."] = {[](const Call& c) -> Inputs {
    const std::vector<int64_t> shape = c.NonEmptyShape(3);
    at::Tensor keep = at::zeros({shape[0], shape[1]}, at::kBool);
    for (int64_t b = 0; b < shape[0]; ++b) {
      keep[b].narrow(0, 0, b == 0 ? shape[1] : c.draw.Int(0, shape[1])).fill_(true);
    }
    const at::Tensor nested =
        at::_nested_tensor_from_mask(c.Tensor(shape, kFloats).contiguous(), keep, true);
    c10::IValue size;
    if (c.draw.Int(0, 4) == 0) size = std::vector<int64_t>{shape[0], shape[1] + 1, shape[2]};
    return {nested, c.Scalar(kFloats), size};
  }};
  specs["aten::to_padded_tensor."].writes_into_output = [](const Inputs& inputs) {
    return inputs[2].isNone();
  };
  specs["aten::glu."] = {[](const Call& c) -> Inputs {
    const int64_t rank = c.Rank(1, 3);
    std::vector<int64_t> shape = c.Shape(rank);
    const int64_t dim = c.draw.Int(0, rank - 1);
    shape[dim] = 2 * c.draw.Int(1, 3) + (c.draw.Int(0, 9) == 0 ? 1 : 0);
    return {c.Tensor(shape, kFloats), c.draw.Bool() ? dim : dim - rank};
  }};
  // Inference batch norms on float tensors of rank 2 to 5, contiguous,
  // channels-last or strided, with NaN and infinities sometimes; weight and
  // bias optional. Doubles, strided or channels-last 5-D inputs, empty ones
  // and training mode run ATen's op.
  specs["aten::batch_norm."] = {[](const Call& c) -> Inputs {
    const int64_t rank = c.Rank(2, 5);
    std::vector<int64_t> shape = c.Shape(rank);
    if (c.draw.Int(0, 3) == 0) shape[1] = c.draw.Int(9, 40);  // vectors and tails of channels
    const at::ScalarType t = c.draw.Int(0, 4) == 0 ? at::kDouble : at::kFloat;
    at::Tensor x = c.draw.Tensor(shape, t);
    if (rank >= 4 && c.draw.Bool()) {
      x = x.contiguous(rank == 4 ? at::MemoryFormat::ChannelsLast
                                 : at::MemoryFormat::ChannelsLast3d);
    }
    if (x.numel() > 0 && c.draw.Int(0, 3) == 0) {
      at::Tensor element = x;
      while (element.dim() > 0) element = element.select(0, c.draw.Int(0, element.size(0) - 1));
      element.fill_(c.draw.OneOf<double>({NAN, INFINITY, -INFINITY}));
    }
    const int64_t channels = shape[1];
    auto affine = [&]() {
      return c.draw.Bool() ? c10::IValue() : c10::IValue(c.draw.Tensor({channels}, t));
    };
    return {x,
            affine(),
            affine(),
            c.draw.ContiguousTensor({channels}, t),
            c.draw.ContiguousTensor({channels}, t).abs() + 0.1,
            c.draw.Int(0, 5) == 0,
            0.1,
            c.draw.OneOf<double>({1e-5, 1e-3, 0.25}),
            false};
  }};
  // Where ATen's contiguous and channels-last loops run (the kernel's own).
  specs["aten::batch_norm."].writes_into_output = [](const Inputs& inputs) {
    const at::Tensor& x = inputs[0].toTensor();
    const at::MemoryFormat layout = x.suggest_memory_format();
    const auto contiguous = [](const c10::IValue& v) {
      return v.isNone() || v.toTensor().is_contiguous();
    };
    return !inputs[5].toBool() && x.scalar_type() == at::kFloat && x.numel() > 0 &&
           (layout == at::MemoryFormat::Contiguous || layout == at::MemoryFormat::ChannelsLast) &&
           x.is_contiguous(layout) && contiguous(inputs[1]) && contiguous(inputs[2]);
  };
  // batch_norm then relu (passes/fuse_batch_norm_relu.h): batch_norm's
  // inputs, where it runs the same loops.
  specs["static_runtime::batch_norm_relu."] = specs["aten::batch_norm."];
  // Sometimes int32 indices, or one out of range (ATen's error).
  specs["aten::embedding."] = {[](const Call& c) -> Inputs {
    const int64_t rows = c.draw.Int(1, 6);
    at::Tensor indices = c.draw.Indices(c.Shape(c.Rank(1, 2)), 0, rows);
    if (indices.numel() > 0 && c.draw.Int(0, 4) == 0) {
      indices.view(-1)[c.draw.Int(0, indices.numel() - 1)] = c.draw.Bool() ? rows : -1;
    }
    if (c.draw.Bool()) indices = indices.to(at::kInt);
    return {c.draw.Tensor({rows, c.draw.Int(1, 5)}, c.draw.OneOf(kFloats)), indices, -1, false,
            false};
  }};
  auto image = [](const Call& c, int64_t min_side) {
    return c.draw.Tensor({c.draw.Int(1, 2), c.draw.Int(1, 3), c.draw.Int(min_side, 3 + 2 * c.scale),
                          c.draw.Int(min_side, 3 + 2 * c.scale)},
                         c.draw.OneOf(kFloats));
  };
  // Bags of ids drawn as sorted offsets starting at 0; sometimes an index
  // out of range, a padding row, int32 ids or the closing offset included.
  // Float weights run the AVX2 kernel, doubles the plain loop.
  auto embedding_bag = [](const Call& c, bool padding_idx_argument) -> Inputs {
    const int64_t rows = c.draw.Int(1, 6);
    const at::ScalarType index_type = c.draw.Bool() ? at::kLong : at::kInt;
    const int64_t bags = c.draw.Int(c.scale == 0 ? 0 : 1, 1 + 2 * c.scale);
    std::vector<int64_t> offsets = {0};
    for (int64_t b = 1; b < bags; ++b) offsets.push_back(offsets.back() + c.draw.Int(0, 3));
    const int64_t num_indices = offsets.back() + c.draw.Int(0, 3);
    const bool include_last = c.draw.Int(0, 3) == 0;
    if (include_last) offsets.push_back(num_indices);
    const int64_t high = c.draw.Int(0, 9) == 0 ? rows + 1 : rows;
    // Widths up to 17, sometimes up to 100 (the vector kernel sums 64, 32,
    // 16 and 8 columns at a time, then the rest).
    const int64_t dim = c.draw.Int(0, 3) == 0 ? c.draw.Int(18, 100) : c.draw.Int(1, 17);
    Inputs inputs = {c.draw.ContiguousTensor({rows, dim}, c.draw.OneOf(kFloats)),
                     c.draw.Indices({num_indices}, 0, high).to(index_type),
                     at::tensor(offsets, at::kLong).to(index_type),
                     false,
                     c.draw.Int(0, 1),
                     false,
                     c10::IValue(),
                     include_last};
    if (padding_idx_argument) {
      inputs.push_back(c.draw.Bool() ? c10::IValue(c.draw.Int(-rows, rows - 1)) : c10::IValue());
    }
    return inputs;
  };
  specs["aten::embedding_bag."] = {[=](const Call& c) { return embedding_bag(c, false); }};
  specs["aten::embedding_bag.padding_idx"] = {
      [=](const Call& c) { return embedding_bag(c, true); }};
  for (const char* key : {"aten::embedding_bag.", "aten::embedding_bag.padding_idx"}) {
    specs[key].compared_outputs = 1;
  }
  // Images of every layout, sometimes NCHW rows wide enough for several
  // vectors of output columns (the kernel's own loop); windows of 1-3, strides
  // of 1-3 or the kernel's, padding up to half the window (sometimes more:
  // ATen's error), a divisor sometimes.
  specs["aten::avg_pool2d."] = {[=](const Call& c) -> Inputs {
    at::Tensor x = image(c, 3);
    if (c.draw.Bool())
      x = c.draw.Tensor({x.size(0), x.size(1), x.size(2), c.draw.Int(16, 48)}, x.scalar_type());
    const int64_t kernel_h = c.draw.Int(1, 3), kernel_w = c.draw.Int(1, 3);
    const int64_t most_padding = c.draw.Int(0, 9) == 0 ? 2 : 1;
    return {x,
            c10::List<int64_t>({kernel_h, kernel_w}),
            c.draw.Int(0, 3) == 0 ? c10::List<int64_t>()
                                  : c10::List<int64_t>({c.draw.Int(1, 3), c.draw.Int(1, 3)}),
            c10::List<int64_t>({c.draw.Int(0, std::min(kernel_h / 2 + 1, most_padding)),
                                c.draw.Int(0, std::min(kernel_w / 2 + 1, most_padding))}),
            c.draw.Bool(),
            c.draw.Bool(),
            c.draw.Int(0, 3) == 0 ? c10::IValue(c.draw.Int(1, 5)) : c10::IValue()};
  }};
  specs["aten::adaptive_avg_pool2d."] = {[=](const Call& c) -> Inputs {
    return {image(c, 1), c10::List<int64_t>({c.draw.Int(1, 3), c.draw.Int(1, 3)})};
  }};
  // unfold (im2col) of images [N, C, H, W] or unbatched [C, H, W]: windows
  // of 1-3, dilation 1-2, padding 0-1, stride 1-2 (a window larger than the
  // padded image: ATen's error). fold (col2im) of columns [N, C k k, L] into
  // an output size, L the windows' count, or one more (ATen's error).
  auto pair = [](const Call& c, int64_t low, int64_t high) {
    return std::array<int64_t, 2>{c.draw.Int(low, high), c.draw.Int(low, high)};
  };
  auto list = [](const std::array<int64_t, 2>& values) {
    return c10::List<int64_t>({values[0], values[1]});
  };
  specs["aten::im2col."] = {[=](const Call& c) -> Inputs {
    std::vector<int64_t> sizes = {c.draw.Int(1, 3), c.draw.Int(1, 4 + 2 * c.scale),
                                  c.draw.Int(1, 4 + 2 * c.scale)};
    if (c.draw.Bool()) sizes.insert(sizes.begin(), c.draw.Int(1, 2));
    return {c.draw.Tensor(sizes, c.draw.OneOf(kFloats)), list(pair(c, 1, 3)), list(pair(c, 1, 2)),
            list(pair(c, 0, 1)), list(pair(c, 1, 2))};
  }};
  specs["aten::col2im."] = {[=](const Call& c) -> Inputs {
    const auto size = pair(c, 1, 4 + 2 * c.scale), kernel = pair(c, 1, 3), dilation = pair(c, 1, 2),
               padding = pair(c, 0, 1), stride = pair(c, 1, 2);
    int64_t blocks = 1;
    for (int i = 0; i < 2; ++i) {
      blocks *= std::max<int64_t>(
          1, (size[i] + 2 * padding[i] - dilation[i] * (kernel[i] - 1) - 1) / stride[i] + 1);
    }
    if (c.draw.Int(0, 5) == 0) ++blocks;
    std::vector<int64_t> sizes = {c.draw.Int(1, 2) * kernel[0] * kernel[1], blocks};
    if (c.draw.Bool()) sizes.insert(sizes.begin(), c.draw.Int(1, 2));
    return {c.draw.Tensor(sizes, c.draw.OneOf(kFloats)),
            list(size),
            list(kernel),
            list(dilation),
            list(padding),
            list(stride)};
  }};
  // pixel_shuffle and pixel_unshuffle of [*, C, H, W] (zero to two leading
  // dims) by factors of 1-3, sometimes 0 or a size that does not divide
  // (ATen's errors).
  auto pixels = [](const Call& c, bool shuffle) -> Inputs {
    const int64_t r = c.draw.Int(0, 9) == 0 ? 0 : c.draw.Int(1, 3);
    const int64_t factor = std::max<int64_t>(r, 1);
    std::vector<int64_t> sizes = {c.draw.Int(1, 2) * (shuffle ? factor * factor : 1),
                                  c.draw.Int(1, 3) * (shuffle ? 1 : factor),
                                  c.draw.Int(1, 3) * (shuffle ? 1 : factor)};
    if (c.draw.Int(0, 9) == 0) ++sizes[c.draw.Int(0, 2)];
    for (int64_t i = c.draw.Int(0, 2); i > 0; --i) sizes.insert(sizes.begin(), c.draw.Int(1, 2));
    return {c.draw.Tensor(sizes, c.draw.OneOf(kAll)), r};
  };
  specs["aten::pixel_shuffle."] = {[=](const Call& c) { return pixels(c, true); }};
  specs["aten::pixel_unshuffle."] = {[=](const Call& c) { return pixels(c, false); }};
  // Clips [N, C, D, H, W] or unbatched [C, D, H, W]; the global 1x1x1 pool
  // (a mean) and others.
  specs["aten::adaptive_avg_pool3d."] = {[=](const Call& c) -> Inputs {
    std::vector<int64_t> sizes = c.draw.Shape(3, 1, 2 + c.scale);
    sizes.insert(sizes.begin(), c.draw.Int(1, 3));
    if (c.draw.Bool()) sizes.insert(sizes.begin(), c.draw.Int(1, 2));
    const bool global = c.draw.Bool();
    return {c.draw.Tensor(sizes, c.draw.OneOf(kFloats)),
            c10::List<int64_t>({global ? 1 : c.draw.Int(1, 3), global ? 1 : c.draw.Int(1, 3),
                                global ? 1 : c.draw.Int(1, 3)})};
  }};
  // Float images, channels-last (up to 40 channels for the vector tails) or
  // NCHW (sometimes rows wide enough for several vectors of output columns),
  // with NaNs, ties and infinities, or anything else (ATen's op); windows
  // ATen accepts and some it rejects.
  specs["aten::max_pool2d."] = {[=](const Call& c) -> Inputs {
    const int64_t kernel = c.draw.Int(1, 3);
    const int64_t width = c.draw.Bool() ? c.draw.Int(1, 4 + 2 * c.scale) : c.draw.Int(16, 48);
    at::Tensor x =
        c.draw.Tensor({c.draw.Int(1, 2), c.draw.Int(1, 40), c.draw.Int(1, 4 + 2 * c.scale), width},
                      c.draw.OneOf(kFloats));
    if (c.draw.Bool()) x = x.contiguous(at::MemoryFormat::ChannelsLast);
    if (x.is_floating_point() && c.draw.Bool()) {
      x = x.round();  // ties
      const double special = c.draw.OneOf<double>({NAN, INFINITY, -INFINITY});
      at::Tensor element = x;
      while (element.dim() > 0) element = element.select(0, c.draw.Int(0, element.size(0) - 1));
      element.fill_(special);
    }
    const auto pair = [&](int64_t low, int64_t high) {
      return c.draw.Bool() ? c10::List<int64_t>({c.draw.Int(low, high)})
                           : c10::List<int64_t>({c.draw.Int(low, high), c.draw.Int(low, high)});
    };
    return {x,
            c10::List<int64_t>({kernel, c.draw.Int(1, 3)}),
            c.draw.Int(0, 3) == 0 ? c10::List<int64_t>() : pair(1, 2),
            pair(0, 1),
            pair(1, 2),
            c.draw.Bool()};
  }};

  return specs;
}

}  // namespace specs
}  // namespace testing
}  // namespace static_runtime
