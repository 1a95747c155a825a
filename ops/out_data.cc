// Out-variant kernels that move data into new tensors: cat/stack (and their
// variadic forms), index_select, index, gather, repeat, topk and sort, and
// the factories zeros/ones/full and arange. (Copies of a tensor, views'
// copy variants and unpacked splits: ops/out_copies.cc.)
// flip and roll stay in fallback: their out forms copy through a temporary.
#include <optional>
#include <vector>

#include "ATen/ATen.h"
#include "ATen/CPUFunctions.h"
#include "ATen/NativeFunctions.h"
#include "ops/concat_copy.h"
#include "ops/out_variant.h"

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
// tensors are copied directly (ops/concat_copy.h) when nothing needs
// autograd.
void Concatenate(NodeIO& io, const std::vector<at::Tensor>& tensors, int64_t dim, bool stack) {
  if (CpuKernelsServe()) {  // ConcatSizes checks each input
    if (const std::optional<at::DimVector> sizes = ConcatSizes(tensors, dim, stack)) {
      ConcatInto(tensors, dim, stack, ContiguousOutput(io, 0, tensors[0].scalar_type(), *sizes));
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

void RegisterConcatenation() {
  for (const bool stack : {false, true}) {
    RegisterOut(stack ? "aten::stack" : "aten::cat", "", [stack](NodeIO& io) {
      Concatenate(io, io.Input(0).toTensorVector(), io.Input(1).toInt(), stack);
    });
    KernelRegistry::Global().RegisterNodeKind(
        stack ? "static_runtime::variadic_stack" : "static_runtime::variadic_cat",
        NodeKind::kOutVariant, [stack](const Node*) -> KernelOffer {
          return [stack](NodeIO& io) {
            std::vector<at::Tensor> tensors;
            tensors.reserve(io.num_inputs() - 1);
            for (size_t i = 0; i + 1 < io.num_inputs(); ++i) {
              tensors.push_back(TensorArg(io, i));
            }
            Concatenate(io, tensors, io.Input(io.num_inputs() - 1).toInt(), stack);
          };
        });
  }
}

void RegisterIndexing() {
  RegisterOut("aten::index_select", "", [](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    const int64_t dim = io.Input(1).toInt();
    const at::Tensor& index = TensorArg(io, 2);
    WriteOutput(
        io, 0, self.scalar_type(), [&] { return at::index_select(self, dim, index); },
        [&](at::Tensor& out) { at::cpu::index_select_out(out, self, dim, index); });
  });
  RegisterOut("aten::index", "Tensor", [](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    const c10::List<c10::optional<at::Tensor>> indices = OptionalTensorListArg(io, 1);
    WriteOutput(
        io, 0, self.scalar_type(), [&] { return at::index(self, indices); },
        [&](at::Tensor& out) { at::cpu::index_out(out, self, indices); });
  });
  RegisterOut("aten::gather", "", [](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    const int64_t dim = io.Input(1).toInt();
    const at::Tensor& index = TensorArg(io, 2);
    const bool sparse_grad = io.Input(3).toBool();
    WriteOutput(
        io, 0, self.scalar_type(), [&] { return at::gather(self, dim, index, sparse_grad); },
        [&](at::Tensor& out) { at::cpu::gather_out(out, self, dim, index, sparse_grad); });
  });
  // repeat as ATen computes it, into the output: view the output as
  // (repeat, size) blocks per dim and copy the broadcast input into them.
  RegisterOut("aten::repeat", "", [](NodeIO& io) {
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
  });
  for (const bool is_topk : {true, false}) {
    RegisterOut(is_topk ? "aten::topk" : "aten::sort", "", [is_topk](NodeIO& io) {
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
    });
  }
}

// zeros/ones/full(size, *, dtype, layout, device, pin_memory) on the CPU,
// strided: `fill` is the value of zeros and ones; without it (full) the
// value is input 1.
void RegisterSizedFactory(const char* name, std::optional<double> fill) {
  RegisterOut(name, "", [fill](NodeIO& io) {
    const at::DimVector size = io.Input(0).toDimVector();
    const at::Scalar value = fill ? at::Scalar(*fill) : io.Input(1).toScalar();
    const size_t first_option = fill ? 1 : 2;
    const auto dtype = io.Input(first_option).toOptional<at::ScalarType>();
    const auto layout = io.Input(first_option + 1).toOptional<at::Layout>();
    const auto device = io.Input(first_option + 2).toOptional<at::Device>();
    const auto pin = io.Input(first_option + 3).toOptional<bool>();
    // zeros and ones are full() with a double, which gives the default float.
    auto functional = [&] { return at::full(size, value, dtype, layout, device, pin); };
    if ((layout && *layout != at::kStrided) || (device && !device->is_cpu()) || (pin && *pin)) {
      io.Output(0) = functional();
      return;
    }
    // Without a dtype, full's follows the fill value: bool, int64, complex or
    // the default float, as ATen infers it.
    const at::ScalarType result_dtype = dtype                                     ? *dtype
                                        : value.isBoolean()                       ? at::kBool
                                        : value.isIntegral(/*includeBool=*/false) ? at::kLong
                                        : value.isComplex() ? at::kComplexFloat
                                                            : DefaultFloat();
    WriteOutput(io, 0, result_dtype, functional, [&](at::Tensor& out) {
      at::native::resize_(out, size, c10::nullopt);
      out.fill_(value);
    });
  });
}

// empty(size, *, dtype, layout, device, pin_memory, memory_format) on the
// CPU, strided and contiguous: its values are what the planned memory holds.
void RegisterEmpty() {
  RegisterOut("aten::empty", "memory_format", [](NodeIO& io) {
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
  });
}

// arange(end), arange(start, end), arange(start, end, step) on the CPU.
void RegisterFactories() {
  RegisterSizedFactory("aten::zeros", 0.0);
  RegisterSizedFactory("aten::ones", 1.0);
  RegisterSizedFactory("aten::full", std::nullopt);
  RegisterEmpty();

  const struct {
    const char* overload;
    size_t scalars;  // end | start, end | start, end, step
  } kArange[] = {{"", 1}, {"start", 2}, {"start_step", 3}};
  for (const auto& arange : kArange) {
    RegisterOut("aten::arange", arange.overload, [scalars = arange.scalars](NodeIO& io) {
      const at::Scalar start = scalars == 1 ? at::Scalar(0) : io.Input(0).toScalar();
      const at::Scalar end = io.Input(scalars == 1 ? 0 : 1).toScalar();
      const at::Scalar step = scalars == 3 ? io.Input(2).toScalar() : at::Scalar(1);
      const auto dtype = io.Input(scalars).toOptional<at::ScalarType>();
      const auto layout = io.Input(scalars + 1).toOptional<at::Layout>();
      const auto device = io.Input(scalars + 2).toOptional<at::Device>();
      const auto pin = io.Input(scalars + 3).toOptional<bool>();
      auto functional = [&] { return at::arange(start, end, step, dtype, layout, device, pin); };
      if ((layout && *layout != at::kStrided) || (device && !device->is_cpu()) || (pin && *pin)) {
        io.Output(0) = functional();
        return;
      }
      const bool integral = start.isIntegral(true) && end.isIntegral(true) && step.isIntegral(true);
      WriteOutput(io, 0, dtype.value_or(integral ? at::kLong : DefaultFloat()), functional,
                  [&](at::Tensor& out) { at::arange_out(out, start, end, step); });
    });
  }
}

const bool kRegistered = [] {
  RegisterConcatenation();
  RegisterIndexing();
  RegisterFactories();
  return true;
}();

}  // namespace
}  // namespace static_runtime
