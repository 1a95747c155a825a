// Out-variant kernels that move data into new tensors: cat/stack (and their
// variadic forms), index_select, index, gather, repeat, topk and sort, roll
// and constant padding, and the factories zeros/ones/full, new_zeros/
// new_ones/new_full, eye and arange. (Copies of a tensor, views' copy variants and
// unpacked splits: ops/tensor/out_copies.cc.) flip stays in fallback: its out form
// copies through a temporary.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "ATen/ATen.h"
#include "ATen/CPUFunctions.h"
#include "ATen/NativeFunctions.h"
#include "ATen/TensorUtils.h"
#include "ops/core/out_variant.h"
#include "ops/tensor/channels_last_concat.h"
#include "ops/tensor/concat_copy.h"

namespace static_runtime {
namespace {

using torch::jit::Node;
at::ScalarType PromoteAll(const std::vector<at::Tensor>& tensors) {
  at::ScalarType result = tensors.empty() ? DefaultFloat() : tensors[0].scalar_type();
  for (const at::Tensor& tensor : tensors) {
    result = c10::promoteTypes(result, tensor.scalar_type());
  }
  return result;
}

// Tensors followed by dim, as a list input or as separate inputs. Small
// tensors (ops/tensor/concat_copy.h) and channels-last images along
// channels (ops/tensor/channels_last_concat.h) are copied directly when
// nothing needs autograd.
void Concatenate(NodeIO& io, const std::vector<at::Tensor>& tensors, int64_t dim, bool stack) {
  if (CpuKernelsServe()) {  // ConcatSizes and ChannelsLastConcatSizes check each input
    if (const std::optional<at::DimVector> sizes = ConcatSizes(tensors, dim, stack)) {
      ConcatInto(tensors, dim, stack, ContiguousOutput(io, 0, tensors[0].scalar_type(), *sizes));
      return;
    }
    if (const std::optional<at::DimVector> sizes =
            stack ? std::nullopt : ChannelsLastConcatSizes(tensors, dim)) {
      at::Tensor& out = ContiguousOutput(io, 0, tensors[0].scalar_type(), *sizes);
      at::native::resize_(out, *sizes, at::MemoryFormat::ChannelsLast);
      ChannelsLastConcatInto(tensors, out);
      return;
    }
  }
  WriteOutput(
      io, 0, PromoteAll(tensors),
      [&] { return stack ? at::stack(tensors, dim) : at::cat(tensors, dim); },
      [&](at::Tensor& out) {
        stack ? at::stack_out(out, tensors, dim) : at::cpu::cat_out(out, tensors, dim);
      });
}

void RegisterConcatenation(KernelRegistry& registry) {
  for (const bool stack : {false, true}) {
    registry.Add(OutVariant(stack ? "aten::stack" : "aten::cat", "", [stack](NodeIO& io) {
      Concatenate(io, io.Input(0).toTensorVector(), io.Input(1).toInt(), stack);
    }));
    registry.Add({KernelOp::AnyNodeOf(stack ? "static_runtime::variadic_stack"
                                            : "static_runtime::variadic_cat"),
                  NodeKind::kOutVariant, [stack](const Node*) -> KernelOffer {
                    return [stack](NodeIO& io) {
                      std::vector<at::Tensor> tensors;
                      tensors.reserve(io.num_inputs() - 1);
                      for (size_t i = 0; i + 1 < io.num_inputs(); ++i) {
                        tensors.push_back(TensorArg(io, i));
                      }
                      Concatenate(io, tensors, io.Input(io.num_inputs() - 1).toInt(), stack);
                    };
                  }});
  }
}

void RegisterIndexing(KernelRegistry& registry) {
  registry.Add(OutVariant("aten::index_select", "", [](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    const int64_t dim = io.Input(1).toInt();
    const at::Tensor& index = TensorArg(io, 2);
    WriteOutput(
        io, 0, self.scalar_type(), [&] { return at::index_select(self, dim, index); },
        [&](at::Tensor& out) { at::cpu::index_select_out(out, self, dim, index); });
  }));
  registry.Add(OutVariant("aten::index", "Tensor", [](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    const c10::List<c10::optional<at::Tensor>> indices = OptionalTensorListArg(io, 1);
    WriteOutput(
        io, 0, self.scalar_type(), [&] { return at::index(self, indices); },
        [&](at::Tensor& out) { at::cpu::index_out(out, self, indices); });
  }));
  registry.Add(OutVariant("aten::gather", "", [](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    const int64_t dim = io.Input(1).toInt();
    const at::Tensor& index = TensorArg(io, 2);
    const bool sparse_grad = io.Input(3).toBool();
    WriteOutput(
        io, 0, self.scalar_type(), [&] { return at::gather(self, dim, index, sparse_grad); },
        [&](at::Tensor& out) { at::cpu::gather_out(out, self, dim, index, sparse_grad); });
  }));
  // repeat as ATen computes it, into the output: view the output as
  // (repeat, size) blocks per dim and copy the broadcast input into them.
  registry.Add(OutVariant("aten::repeat", "", [](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    const std::vector<int64_t> repeats = io.Input(1).toIntVector();
    if (repeats.size() < static_cast<size_t>(self.dim())) {
      io.Output(0) = self.repeat(repeats);  // ATen's error
      return;
    }
    WriteOutput(
        io, 0, self.scalar_type(), [&] { return self.repeat(repeats); },
        [&](at::Tensor& out) {
          std::vector<int64_t> padded(repeats.size() - self.dim(), 1);
          padded.insert(padded.end(), self.sizes().begin(), self.sizes().end());
          std::vector<int64_t> target(repeats.size());
          bool empty = false;
          for (size_t i = 0; i < repeats.size(); ++i) {
            target[i] = padded[i] * repeats[i];
            empty = empty || target[i] == 0;
          }
          out.resize_(target);
          if (empty) return;
          at::Tensor blocks = out.alias();
          for (size_t i = 0; i < padded.size(); ++i) {
            blocks = blocks.unfold(i, padded[i], padded[i]);
          }
          blocks.copy_(self.expand(padded).expand_as(blocks));
        });
  }));
  for (const bool is_topk : {true, false}) {
    registry.Add(OutVariant(is_topk ? "aten::topk" : "aten::sort", "", [is_topk](NodeIO& io) {
      const at::Tensor& self = TensorArg(io, 0);
      at::Tensor* values = ReusableOutput(io.Output(0), self.scalar_type());
      at::Tensor* indices = values ? ReusableOutput(io.Output(1), at::kLong) : nullptr;
      if (values && indices) {
        if (is_topk) {
          at::topk_out(*values, *indices, self, io.Input(1).toInt(), io.Input(2).toInt(),
                       io.Input(3).toBool(), io.Input(4).toBool());
        } else {
          at::sort_out(*values, *indices, self, io.Input(1).toInt(), io.Input(2).toBool());
        }
        return;
      }
      auto [new_values, new_indices] =
          is_topk ? at::topk(self, io.Input(1).toInt(), io.Input(2).toInt(), io.Input(3).toBool(),
                             io.Input(4).toBool())
                  : at::sort(self, io.Input(1).toInt(), io.Input(2).toBool());
      io.Output(0) = std::move(new_values);
      io.Output(1) = std::move(new_indices);
    }));
  }
}

// Copies `in` rolled by `shift[d]` along each dim d >= `dim` into `out` (of
// the same sizes): at most two blocks per rolled dim, each copied straight to
// its place. ATen's roll concatenates two narrowed views per dim, through a
// temporary for each dim but the last; the values are the same.
void CopyRolled(const at::Tensor& in, const at::Tensor& out, const std::vector<int64_t>& shift,
                size_t dim) {
  if (dim == shift.size()) {
    out.copy_(in);
    return;
  }
  const auto d = static_cast<int64_t>(dim);
  const int64_t size = in.size(d);
  const int64_t start = ((-shift[dim]) % size + size) % size;  // out[j] = in[(j + start) % size]
  if (start == 0) {
    CopyRolled(in, out, shift, dim + 1);
    return;
  }
  CopyRolled(in.narrow(d, start, size - start), out.narrow(d, 0, size - start), shift, dim + 1);
  CopyRolled(in.narrow(d, 0, start), out.narrow(d, size - start, start), shift, dim + 1);
}

// Whether ATen would give a result shaped like `tensor` channels-last
// strides; the kernels here write contiguous results, as ATen does otherwise.
bool ChannelsLastLike(const at::Tensor& tensor) {
  return tensor.suggest_memory_format() != at::MemoryFormat::Contiguous;
}

// roll(self, shifts, dims) of a tensor not laid out channels-last; with no dims, of the
// flattened tensor, as ATen does. Anything else (and ATen's errors): at::roll.
void RegisterRoll(KernelRegistry& registry) {
  registry.Add(OutVariant("aten::roll", "", [](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    const std::vector<int64_t> shifts = io.Input(1).toIntVector();
    const std::vector<int64_t> dims = io.Input(2).toIntVector();
    auto functional = [&] { return at::roll(self, shifts, dims); };
    const bool flat = dims.empty() && shifts.size() == 1;
    const int64_t rank = self.dim();
    bool valid = PlainCpuTensor(self) && !ChannelsLastLike(self) && self.numel() > 0 && rank > 0 &&
                 (flat || (!dims.empty() && shifts.size() == dims.size()));
    for (const int64_t d : dims) valid = valid && d >= -rank && d < rank;
    if (!valid) {
      io.Output(0) = functional();
      return;
    }
    // Rolls of one dim add up, as ATen applies them one after another.
    std::vector<int64_t> shift(flat ? 1 : rank, 0);
    for (size_t i = 0; i < shifts.size(); ++i) {
      shift[flat ? 0 : c10::maybe_wrap_dim(dims[i], rank)] += shifts[i];
    }
    WriteOutput(io, 0, self.scalar_type(), functional, [&](at::Tensor& out) {
      at::native::resize_(out, self.sizes(), c10::nullopt);
      CopyRolled(flat ? self.reshape({-1}) : self, flat ? out.view({-1}) : out, shift, 0);
    });
  }));
}

// constant_pad_nd(self, pad, value) and pad(self, pad, "constant", value) of
// a tensor not laid out channels-last: the result filled with `value` (unless nothing is
// added) and the input, narrowed where a pad is negative, copied into its
// place, as ATen does. Other modes and anything else (and ATen's errors):
// `functional`.
template <typename Functional>
void ConstantPad(NodeIO& io, const at::Tensor& self, const std::vector<int64_t>& pad,
                 const at::Scalar& value, Functional&& functional) {
  const int64_t rank = self.dim();
  const auto padded_dims = static_cast<int64_t>(pad.size() / 2);
  bool valid =
      PlainCpuTensor(self) && !ChannelsLastLike(self) && pad.size() % 2 == 0 && padded_dims <= rank;
  // The result's sizes, the part of the input kept and where each of its
  // dims starts in the result.
  at::DimVector sizes(self.sizes().begin(), self.sizes().end());
  at::Tensor from = self;
  std::vector<int64_t> starts(rank, 0);
  bool adds = false;
  for (int64_t i = 0; valid && i < padded_dims; ++i) {
    const int64_t d = rank - 1 - i;
    const int64_t before = pad[2 * i];
    const int64_t after = pad[2 * i + 1];
    const int64_t kept = sizes[d] + std::min<int64_t>(before, 0) + std::min<int64_t>(after, 0);
    sizes[d] += before + after;
    valid = kept >= 0;
    if (valid) from = from.narrow(d, std::max<int64_t>(-before, 0), kept);
    starts[d] = std::max<int64_t>(before, 0);
    adds = adds || before > 0 || after > 0;
  }
  // Padding that adds anything may not leave a padded dim empty (ATen's
  // check); cropping alone may.
  for (int64_t i = 0; valid && adds && i < padded_dims; ++i) valid = sizes[rank - 1 - i] > 0;
  if (!valid) {
    io.Output(0) = functional();
    return;
  }
  WriteOutput(io, 0, self.scalar_type(), functional, [&](at::Tensor& out) {
    at::native::resize_(out, sizes, c10::nullopt);
    if (adds) {
      out.fill_(value);
    } else {
      // ATen clones the kept part: its strides, or dense ones in their
      // order when it has gaps (empty_like's preserve format).
      out.as_strided_(sizes, from.is_non_overlapping_and_dense()
                                 ? from.strides().vec()
                                 : at::infer_dense_strides(from.sizes(), from.strides()));
    }
    at::Tensor to = out;
    for (int64_t d = 0; d < rank; ++d) to = to.narrow(d, starts[d], from.size(d));
    to.copy_(from);
  });
}

void RegisterPadding(KernelRegistry& registry) {
  registry.Add(OutVariant("aten::constant_pad_nd", "", [](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    const std::vector<int64_t> pad = io.Input(1).toIntVector();
    const at::Scalar value = io.Input(2).toScalar();
    ConstantPad(io, self, pad, value, [&] { return at::constant_pad_nd(self, pad, value); });
  }));
  registry.Add(OutVariant("aten::pad", "", [](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    const std::vector<int64_t> pad = io.Input(1).toIntVector();
    const std::string mode = io.Input(2).toStringRef();
    const auto value = io.Input(3).toOptional<double>();
    auto functional = [&] { return at::pad(self, pad, mode, value); };
    if (mode != "constant") {
      io.Output(0) = functional();
      return;
    }
    ConstantPad(io, self, pad, value.value_or(0.0), functional);
  }));
}

// zeros/ones/full(size, *, dtype, layout, device, pin_memory) on the CPU,
// strided: `fill` is the value of zeros and ones; without it (full) the
// value is the input after the size. With `like_self`, new_zeros/new_ones/new_full:
// a tensor comes first, and gives the dtype, layout and device not named.
void RegisterSizedFactory(KernelRegistry& registry, const char* name, std::optional<double> fill,
                          bool like_self) {
  registry.Add(OutVariant(name, "", [fill, like_self](NodeIO& io) {
    const size_t first = like_self ? 1 : 0;
    const at::DimVector size = io.Input(first).toDimVector();
    const at::Scalar value = fill ? at::Scalar(*fill) : io.Input(first + 1).toScalar();
    const size_t first_option = first + (fill ? 1 : 2);
    const auto dtype = io.Input(first_option).toOptional<at::ScalarType>();
    const auto layout = io.Input(first_option + 1).toOptional<at::Layout>();
    const auto device = io.Input(first_option + 2).toOptional<at::Device>();
    const auto pin = io.Input(first_option + 3).toOptional<bool>();
    // zeros and ones are full() with a double, which gives the default float.
    auto functional = [&] {
      if (!like_self) return at::full(size, value, dtype, layout, device, pin);
      const at::Tensor& self = TensorArg(io, 0);
      return !fill        ? self.new_full(size, value, dtype, layout, device, pin)
             : *fill == 0 ? self.new_zeros(size, dtype, layout, device, pin)
                          : self.new_ones(size, dtype, layout, device, pin);
    };
    if ((layout && *layout != at::kStrided) || (device && !device->is_cpu()) || (pin && *pin) ||
        (like_self && !PlainCpuTensor(TensorArg(io, 0)))) {
      io.Output(0) = functional();
      return;
    }
    // Without a dtype, new_* take self's; full's follows the fill value:
    // bool, int64, complex or the default float, as ATen infers it.
    const at::ScalarType result_dtype = dtype               ? *dtype
                                        : like_self         ? TensorArg(io, 0).scalar_type()
                                        : value.isBoolean() ? at::kBool
                                        : value.isIntegral(/*includeBool=*/false) ? at::kLong
                                        : value.isComplex() ? at::kComplexFloat
                                                            : DefaultFloat();
    WriteOutput(io, 0, result_dtype, functional, [&](at::Tensor& out) {
      at::native::resize_(out, size, c10::nullopt);
      out.fill_(value);
    });
  }));
}

// empty(size, *, dtype, layout, device, pin_memory, memory_format) on the
// CPU, strided and contiguous: its values are what the planned memory holds.
void RegisterEmpty(KernelRegistry& registry) {
  registry.Add(OutVariant("aten::empty", "memory_format", [](NodeIO& io) {
    const at::DimVector size = io.Input(0).toDimVector();
    const auto dtype = io.Input(1).toOptional<at::ScalarType>();
    const auto layout = io.Input(2).toOptional<at::Layout>();
    const auto device = io.Input(3).toOptional<at::Device>();
    const auto pin = io.Input(4).toOptional<bool>();
    const auto format = io.Input(5).toOptional<at::MemoryFormat>();
    auto functional = [&] { return at::empty(size, dtype, layout, device, pin, format); };
    if ((layout && *layout != at::kStrided) || (device && !device->is_cpu()) || (pin && *pin) ||
        (format && *format != at::MemoryFormat::Contiguous)) {
      io.Output(0) = functional();
      return;
    }
    WriteOutput(io, 0, dtype.value_or(DefaultFloat()), functional,
                [&](at::Tensor& out) { at::native::resize_(out, size, c10::nullopt); });
  }));
}

// eye(n) and eye(n, m) on the CPU, strided.
void RegisterEye(KernelRegistry& registry) {
  for (const bool with_m : {false, true}) {
    registry.Add(OutVariant("aten::eye", with_m ? "m" : "", [with_m](NodeIO& io) {
      const int64_t n = io.Input(0).toInt();
      const int64_t m = with_m ? io.Input(1).toInt() : n;
      const size_t first_option = with_m ? 2 : 1;
      const auto dtype = io.Input(first_option).toOptional<at::ScalarType>();
      const auto layout = io.Input(first_option + 1).toOptional<at::Layout>();
      const auto device = io.Input(first_option + 2).toOptional<at::Device>();
      const auto pin = io.Input(first_option + 3).toOptional<bool>();
      auto functional = [&] {
        return with_m ? at::eye(n, m, dtype, layout, device, pin)
                      : at::eye(n, dtype, layout, device, pin);
      };
      if ((layout && *layout != at::kStrided) || (device && !device->is_cpu()) || (pin && *pin)) {
        io.Output(0) = functional();
        return;
      }
      WriteOutput(io, 0, dtype.value_or(DefaultFloat()), functional,
                  [&](at::Tensor& out) { with_m ? at::eye_out(out, n, m) : at::eye_out(out, n); });
    }));
  }
}

// arange(end), arange(start, end), arange(start, end, step) on the CPU.
void RegisterFactories(KernelRegistry& registry) {
  for (const bool like_self : {false, true}) {
    RegisterSizedFactory(registry, like_self ? "aten::new_zeros" : "aten::zeros", 0.0, like_self);
    RegisterSizedFactory(registry, like_self ? "aten::new_ones" : "aten::ones", 1.0, like_self);
    RegisterSizedFactory(registry, like_self ? "aten::new_full" : "aten::full", std::nullopt,
                         like_self);
  }
  RegisterEmpty(registry);
  RegisterEye(registry);

  const struct {
    const char* overload;
    size_t scalars;  // end | start, end | start, end, step
  } kArange[] = {{"", 1}, {"start", 2}, {"start_step", 3}};
  for (const auto& arange : kArange) {
    registry.Add(
        OutVariant("aten::arange", arange.overload, [scalars = arange.scalars](NodeIO& io) {
          const at::Scalar start = scalars == 1 ? at::Scalar(0) : io.Input(0).toScalar();
          const at::Scalar end = io.Input(scalars == 1 ? 0 : 1).toScalar();
          const at::Scalar step = scalars == 3 ? io.Input(2).toScalar() : at::Scalar(1);
          const auto dtype = io.Input(scalars).toOptional<at::ScalarType>();
          const auto layout = io.Input(scalars + 1).toOptional<at::Layout>();
          const auto device = io.Input(scalars + 2).toOptional<at::Device>();
          const auto pin = io.Input(scalars + 3).toOptional<bool>();
          auto functional = [&] {
            return at::arange(start, end, step, dtype, layout, device, pin);
          };
          if ((layout && *layout != at::kStrided) || (device && !device->is_cpu()) ||
              (pin && *pin)) {
            io.Output(0) = functional();
            return;
          }
          const bool integral =
              start.isIntegral(true) && end.isIntegral(true) && step.isIntegral(true);
          WriteOutput(io, 0, dtype.value_or(integral ? at::kLong : DefaultFloat()), functional,
                      [&](at::Tensor& out) { at::arange_out(out, start, end, step); });
        }));
  }
}

}  // namespace

void RegisterOutDataKernels(KernelRegistry& registry) {
  RegisterConcatenation(registry);
  RegisterIndexing(registry);
  RegisterFactories(registry);
  RegisterRoll(registry);
  RegisterPadding(registry);
}

}  // namespace static_runtime
