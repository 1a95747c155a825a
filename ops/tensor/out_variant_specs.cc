#include "ops/tensor/out_variant_specs.h"

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

std::map<std::string, Spec> TensorOutVariantSpecs() {
  std::map<std::string, Spec> specs;
  // `count` tensors that agree except along `dim` (cat) or entirely (stack).
  auto pieces = [](const Call& c, bool stack, int64_t& dim) {
    const int64_t rank = c.Rank(1, 3);
    dim = c.Dim(rank);
    const int64_t count = 1 + c.structure % 3;
    std::vector<int64_t> shape = c.Shape(rank);
    std::vector<at::Tensor> tensors;
    for (int64_t i = 0; i < count; ++i) {
      if (!stack) shape[(dim + rank) % rank] = c.draw.Int(0, 3);
      tensors.push_back(c.Tensor(shape, kAll));
    }
    return tensors;
  };
  for (const bool stack : {false, true}) {
    specs[stack ? "aten::stack." : "aten::cat."] = {[=](const Call& c) -> Inputs {
      int64_t dim;
      return {c10::List<at::Tensor>(pieces(c, stack, dim)), dim};
    }};
    Spec variadic{[=](const Call& c) -> Inputs {
      int64_t dim;
      Inputs inputs;
      for (const at::Tensor& tensor : pieces(c, stack, dim)) inputs.push_back(tensor);
      inputs.push_back(dim);
      return inputs;
    }};
    specs[stack ? "static_runtime::variadic_stack" : "static_runtime::variadic_cat"] = variadic;
  }
  specs["aten::index_select."] = {[](const Call& c) -> Inputs {
    const int64_t rank = c.Rank(1, 3);
    const std::vector<int64_t> shape = c.NonEmptyShape(rank);
    const int64_t dim = c.Dim(rank);
    return {c.Tensor(shape, kAll), dim,
            c.draw.Indices({c.draw.Int(0, 4)}, 0, shape[(dim + rank) % rank])};
  }};
  specs["aten::gather."] = {[](const Call& c) -> Inputs {
    const int64_t rank = c.Rank(1, 3);
    const std::vector<int64_t> shape = c.NonEmptyShape(rank);
    const int64_t dim = c.Dim(rank);
    std::vector<int64_t> index_shape;
    for (int64_t size : shape) index_shape.push_back(c.draw.Int(1, size));
    return {c.Tensor(shape, kAll), dim, c.draw.Indices(index_shape, 0, shape[(dim + rank) % rank]),
            false};
  }};
  specs["aten::repeat."] = OverDims(kAll, [](const Call& c, int64_t rank) -> Inputs {
    std::vector<int64_t> repeats;
    for (int64_t i = 0; i < rank + c.draw.Int(0, 1); ++i) repeats.push_back(c.draw.Int(0, 3));
    return {c10::List<int64_t>(repeats)};
  });
  specs["aten::topk."] = {[](const Call& c) -> Inputs {
    const int64_t rank = c.Rank(1, 3);
    const std::vector<int64_t> shape = c.NonEmptyShape(rank);
    const int64_t dim = c.Dim(rank);
    // Distinct values, so the order of ties cannot differ.
    at::Tensor x = at::randperm(at::prod(at::tensor(shape)).item<int64_t>()).reshape(shape);
    return {x.to(c.draw.OneOf(kNumbers)), c.draw.Int(0, shape[(dim + rank) % rank]), dim,
            c.draw.Bool(), true};
  }};
  specs["aten::sort."] = {[](const Call& c) -> Inputs {
    const int64_t rank = c.Rank(1, 3);
    const std::vector<int64_t> shape = c.Shape(rank);
    at::Tensor x = at::randperm(at::prod(at::tensor(shape)).item<int64_t>()).reshape(shape);
    return {x.to(c.draw.OneOf(kNumbers)), c.Dim(rank), c.draw.Bool()};
  }};
  // No format, or one of them (channels_last fails on these ranks, both ways).
  auto memory_format = [](const Call& c) -> c10::IValue {
    static const std::vector<c10::IValue> kFormats = {c10::IValue(), at::MemoryFormat::Preserve,
                                                      at::MemoryFormat::Contiguous,
                                                      at::MemoryFormat::ChannelsLast};
    return c.draw.OneOf(kFormats);
  };
  specs["aten::clone."] =
      Unary(kAll, [memory_format](const Call& c) -> Inputs { return {memory_format(c)}; });
  specs["aten::contiguous."] = Unary(kAll, [](const Call& c) -> Inputs {
    return {c.draw.Bool() ? at::MemoryFormat::Contiguous : at::MemoryFormat::Preserve};
  });
  specs["aten::contiguous."].may_alias = true;
  specs["aten::type_as."] = {[](const Call& c) -> Inputs {
    return {c.Tensor(c.Shape(c.Rank(0, 3)), kAll), c.Tensor({1}, kAll)};
  }};
  specs["aten::type_as."].may_alias = true;
  auto like_options = [memory_format](const Call& c) -> Inputs {
    return {c.draw.Bool() ? c10::IValue() : c10::IValue(c.draw.OneOf(kAll)), c10::IValue(),
            c10::IValue(), c10::IValue(), memory_format(c)};
  };
  specs["aten::empty_like."] = Unary(kAll, like_options);
  specs["aten::empty_like."].compares_values = false;
  specs["aten::zeros_like."] = Unary(kAll, like_options);
  specs["aten::ones_like."] = Unary(kAll, like_options);
  specs["aten::full_like."] = Unary(kAll, [=](const Call& c) -> Inputs {
    Inputs inputs = like_options(c);
    inputs.insert(inputs.begin(), c.Scalar({at::kLong}));
    return inputs;
  });

  // zeros/ones/full(size, [value,] dtype, layout, device, pin_memory), and
  // new_zeros/new_ones/new_full with a tensor first (a value of 0 or 1 fits
  // its every dtype).
  auto sized = [](bool has_value, bool like_self) {
    return Spec{[has_value, like_self](const Call& c) -> Inputs {
      Inputs inputs;
      if (like_self) inputs.push_back(c.Tensor(c.Shape(c.Rank(0, 2)), kAll));
      inputs.push_back(c10::List<int64_t>(c.Shape(c.Rank(0, 3))));
      if (has_value) {
        inputs.push_back(like_self ? c10::IValue(static_cast<int64_t>(c.draw.Int(0, 1)))
                                   : c.Scalar(kAll));
      }
      inputs.push_back(c.draw.Bool() ? c10::IValue() : c10::IValue(c.draw.OneOf(kAll)));
      for (int i = 0; i < 3; ++i) inputs.push_back(c10::IValue());
      return inputs;
    }};
  };
  for (const bool like_self : {false, true}) {
    const std::string prefix = like_self ? "aten::new_" : "aten::";
    specs[prefix + "zeros."] = sized(false, like_self);
    specs[prefix + "ones."] = sized(false, like_self);
    specs[prefix + "full."] = sized(true, like_self);
  }
  // Images upsampled to an output size or by scale factors (exactly one of
  // them in the .vec forms), bilinear with and without aligned corners.
  auto image = [](const Call& c) {
    return c.Tensor({c.draw.Int(1, 2), c.draw.Int(1, 3), c.draw.Int(1, 5), c.draw.Int(1, 5)},
                    kFloats);
  };
  auto output_size = [](const Call& c) {
    return c10::List<int64_t>({c.draw.Int(1, 9), c.draw.Int(1, 9)});
  };
  auto size_or_scales = [=](const Call& c) -> std::pair<c10::IValue, c10::IValue> {
    if (c.draw.Bool()) return {output_size(c), c10::IValue()};
    const double scale = c.draw.OneOf<double>({0.5, 1.0, 1.5, 2.0, 3.0});
    return {c10::IValue(), c10::List<double>({scale, c.draw.Bool() ? scale : 2.0})};
  };
  auto optional_scale = [](const Call& c) {
    return c.draw.Bool() ? c10::IValue() : c10::IValue(c.draw.OneOf<double>({0.5, 2.0}));
  };
  specs["aten::upsample_nearest2d.vec"] = {[=](const Call& c) -> Inputs {
    auto [size, scales] = size_or_scales(c);
    return {image(c), size, scales};
  }};
  specs["aten::upsample_bilinear2d.vec"] = {[=](const Call& c) -> Inputs {
    auto [size, scales] = size_or_scales(c);
    return {image(c), size, c.draw.Bool(), scales};
  }};
  specs["aten::upsample_nearest2d."] = {[=](const Call& c) -> Inputs {
    return {image(c), output_size(c), optional_scale(c), optional_scale(c)};
  }};
  // roll(self, shifts, dims): no dims (the flattened tensor), one or two
  // (perhaps the same one twice).
  specs["aten::roll."] = OverDims(
      kAll,
      [](const Call& c, int64_t rank) -> Inputs {
        const int64_t count = c.draw.Int(0, 2);
        std::vector<int64_t> shifts;
        std::vector<int64_t> dims;
        for (int64_t i = 0; i < std::max<int64_t>(count, 1); ++i)
          shifts.push_back(c.draw.Int(-7, 7));
        for (int64_t i = 0; i < count; ++i) dims.push_back(c.draw.Int(-rank, rank - 1));
        return {c10::List<int64_t>(shifts), c10::List<int64_t>(dims)};
      },
      /*non_empty=*/true);
  // Constant padding of up to every dim: a pad before may be -1 (cropping),
  // which the non-empty sizes allow.
  auto constant_pads = [](const Call& c, int64_t rank) {
    std::vector<int64_t> pad;
    const int64_t padded_dims = c.draw.Int(0, rank);
    for (int64_t i = 0; i < padded_dims; ++i) {
      pad.push_back(c.draw.Int(-1, 3));
      pad.push_back(c.draw.Int(0, 3));
    }
    return c10::List<int64_t>(pad);
  };
  specs["aten::constant_pad_nd."] = OverDims(
      kAll,
      [=](const Call& c, int64_t rank) -> Inputs {
        return {constant_pads(c, rank), static_cast<int64_t>(c.draw.Int(0, 1))};
      },
      /*non_empty=*/true);
  specs["aten::pad."] = OverDims(
      kAll,
      [=](const Call& c, int64_t rank) -> Inputs {
        return {constant_pads(c, rank), std::string("constant"),
                c.draw.Bool() ? c10::IValue() : c10::IValue(static_cast<double>(c.draw.Int(0, 1)))};
      },
      /*non_empty=*/true);
  // empty(size, dtype, layout, device, pin_memory, memory_format).
  specs["aten::empty.memory_format"] = {[](const Call& c) -> Inputs {
    Inputs inputs = {c10::List<int64_t>(c.Shape(c.Rank(0, 3))),
                     c.draw.Bool() ? c10::IValue() : c10::IValue(c.draw.OneOf(kAll))};
    for (int i = 0; i < 3; ++i) inputs.push_back(c10::IValue());
    inputs.push_back(c.draw.Bool() ? c10::IValue() : c10::IValue(at::MemoryFormat::Contiguous));
    return inputs;
  }};
  specs["aten::empty.memory_format"].compares_values = false;
  // index with tensors (or None) for the leading dims, broadcasting together.
  specs["aten::index.Tensor"] = {[](const Call& c) -> Inputs {
    const int64_t rank = c.Rank(1, 3);
    const std::vector<int64_t> shape = c.NonEmptyShape(rank);
    const std::vector<int64_t> index_shape = {c.draw.Int(0, 4)};
    c10::List<c10::optional<at::Tensor>> indices;
    bool any_tensor = false;
    const int64_t indexed_dims = c.draw.Int(1, rank);
    for (int64_t d = 0; d < indexed_dims; ++d) {
      if (c.draw.Bool() || (!any_tensor && d == 0)) {
        indices.push_back(c.draw.Indices(index_shape, 0, shape[d]));
        any_tensor = true;
      } else {
        indices.push_back(c10::nullopt);
      }
    }
    return {c.Tensor(shape, kAll), indices};
  }};

  // arange: integer or float bounds, steps of either sign (sometimes 0 or
  // pointing away from the end: both are errors), an explicit dtype.
  auto arange = [](const Call& c, size_t scalars) -> Inputs {
    auto bound = [&] {
      return c.draw.Bool() ? c10::IValue(c.draw.Int(-3, 3 + 3 * c.scale))
                           : c10::IValue(c.draw.Int(-12, 12 + 12 * c.scale) / 4.0);
    };
    Inputs inputs;
    for (size_t i = 0; i < std::min<size_t>(scalars, 2); ++i) inputs.push_back(bound());
    if (scalars == 3) {
      inputs.push_back(c.draw.Bool() ? c10::IValue(c.draw.Int(-2, 2))
                                     : c10::IValue(c.draw.Int(-4, 4) / 2.0));
    }
    inputs.push_back(c.draw.Bool() ? c10::IValue()
                                   : c10::IValue(c.draw.OneOf(
                                         DtypeList{at::kFloat, at::kDouble, at::kLong, at::kInt})));
    for (int i = 0; i < 3; ++i) inputs.push_back(c10::IValue());
    return inputs;
  };
  specs["aten::arange."] = {[=](const Call& c) { return arange(c, 1); }};
  specs["aten::arange.start"] = {[=](const Call& c) { return arange(c, 2); }};
  specs["aten::arange.start_step"] = {[=](const Call& c) { return arange(c, 3); }};

  // eye: square or not, empty, sometimes a negative size (an error), an
  // explicit dtype.
  auto eye = [](const Call& c, bool with_m) -> Inputs {
    Inputs inputs = {c.draw.Int(-1, 6 + 6 * c.scale)};
    if (with_m) inputs.push_back(c.draw.Int(-1, 6 + 6 * c.scale));
    inputs.push_back(c.draw.Bool() ? c10::IValue()
                                   : c10::IValue(c.draw.OneOf(DtypeList{at::kFloat, at::kDouble,
                                                                        at::kLong, at::kBool})));
    for (int i = 0; i < 3; ++i) inputs.push_back(c10::IValue());
    return inputs;
  };
  specs["aten::eye."] = {[=](const Call& c) { return eye(c, false); }};
  specs["aten::eye.m"] = {[=](const Call& c) { return eye(c, true); }};

  // Copy variants: (view's arguments) -> a fresh contiguous tensor.
  auto copy = [](std::function<Inputs(const Call&)> inputs,
                 std::vector<std::string> overloads = {""}) {
    Spec spec{std::move(inputs)};
    spec.overloads = std::move(overloads);
    return spec;
  };
  specs["static_runtime::copy_reshape"] = copy([](const Call& c) -> Inputs {
    const std::vector<int64_t> shape = c.Shape(c.Rank(1, 3));
    std::vector<int64_t> target(shape.rbegin(), shape.rend());
    if (c.draw.Bool()) target[0] = -1;
    if (std::count(shape.begin(), shape.end(), 0) > 0) target[0] = 0;
    return {c.Tensor(shape, kAll), c10::List<int64_t>(target)};
  });
  specs["static_runtime::copy_flatten"] = copy(
      [](const Call& c) -> Inputs {
        const int64_t rank = c.Rank(1, 3);
        const int64_t start = c.draw.Int(0, rank - 1);
        return {c.Tensor(c.Shape(rank), kAll), start, c.draw.Int(start, rank - 1)};
      },
      {"using_ints"});
  specs["static_runtime::copy_permute"] = copy([](const Call& c) -> Inputs {
    const int64_t rank = c.Rank(1, 3);
    std::vector<int64_t> dims(rank);
    for (int64_t i = 0; i < rank; ++i) dims[i] = (i + c.structure) % rank;
    return {c.Tensor(c.Shape(rank), kAll), c10::List<int64_t>(dims)};
  });
  specs["static_runtime::copy_contiguous"] = copy([](const Call& c) -> Inputs {
    return {c.Tensor(c.Shape(c.Rank(1, 4)), kAll), c10::IValue(at::MemoryFormat::Contiguous)};
  });
  specs["static_runtime::copy_reshape_as"] = copy([](const Call& c) -> Inputs {
    const std::vector<int64_t> shape = c.Shape(c.Rank(1, 3));
    return {c.Tensor(shape, kAll),
            c.Tensor(std::vector<int64_t>(shape.rbegin(), shape.rend()), kAll)};
  });
  Spec maybe_copy = copy(
      [](const Call& c) -> Inputs {
        at::Tensor x = c.Tensor(c.Shape(c.Rank(0, 3)), kAll);
        c10::IValue target = c.overload == "dtype" ? c10::IValue(c.draw.OneOf(kAll))
                                                   : c10::IValue(c.Tensor({1}, kAll));
        return {x, target, false, c.draw.Bool(), c10::IValue()};
      },
      {"dtype", "other"});
  maybe_copy.may_alias = true;
  specs["static_runtime::maybe_copy_to"] = maybe_copy;

  // Splits: the node has one output per part.
  auto split = [](std::function<Inputs(const Call&)> inputs,
                  std::function<size_t(const Inputs&)> parts) {
    Spec spec{std::move(inputs)};
    spec.num_outputs = std::move(parts);
    return spec;
  };
  // Parts counts are fixed per case (the node's outputs), sizes vary.
  specs["static_runtime::split_unpacked"] = split(
      [](const Call& c) -> Inputs {
        const int64_t parts = 1 + c.structure % 3;
        const int64_t size = c.draw.Int(1, 2);
        std::vector<int64_t> shape = c.NonEmptyShape(2);
        shape[0] = parts * size;
        return {c.Tensor(shape, kAll), size, 0};
      },
      [](const Inputs& in) {
        return static_cast<size_t>(in[0].toTensor().size(0) / in[1].toInt());
      });
  specs["static_runtime::split_with_sizes_unpacked"] = split(
      [](const Call& c) -> Inputs {
        const int64_t parts = 1 + c.structure % 3;
        std::vector<int64_t> sizes;
        for (int64_t i = 0; i < parts; ++i) sizes.push_back(c.draw.Int(0, 3));
        std::vector<int64_t> shape = c.Shape(2);
        shape[1] = std::accumulate(sizes.begin(), sizes.end(), int64_t{0});
        return {c.Tensor(shape, kAll), c10::List<int64_t>(sizes), -1};
      },
      [](const Inputs& in) { return in[1].toIntVector().size(); });
  specs["static_runtime::chunk_unpacked"] = split(
      [](const Call& c) -> Inputs {
        const int64_t chunks = 1 + c.structure % 3;
        std::vector<int64_t> shape = c.NonEmptyShape(2);
        shape[1] = chunks * c.draw.Int(1, 2);
        return {c.Tensor(shape, kAll), chunks, 1};
      },
      [](const Inputs& in) { return static_cast<size_t>(in[1].toInt()); });
  specs["static_runtime::unbind_unpacked"] = split(
      [](const Call& c) -> Inputs {
        std::vector<int64_t> shape = c.Shape(2);
        shape[0] = 1 + c.structure % 3;
        return {c.Tensor(shape, kAll), 0};
      },
      [](const Inputs& in) { return static_cast<size_t>(in[0].toTensor().size(0)); });
  return specs;
}

}  // namespace specs
}  // namespace testing
}  // namespace static_runtime
