// Out-variant kernels for data movement: cat/stack (and their variadic
// forms), index_select, gather, repeat, clone, contiguous, type_as,
// zeros_like/ones_like/full_like, arange, the copy variants of views, maybe-copying
// `to`, split/chunk/unbind with unpacked outputs, topk and sort.
// aten::narrow_copy stays in fallback: LibTorch 1.13's narrow_copy ignores
// the strides of non-contiguous inputs, and the runtime must give what the
// JIT gives. flip and roll too: their out forms copy through a temporary.
#include <optional>
#include <vector>

#include "ATen/ATen.h"
#include "ATen/CPUFunctions.h"
#include "ATen/ExpandUtils.h"
#include "ATen/NativeFunctions.h"
#include "absl/container/flat_hash_set.h"
#include "ir/operators/operators.h"
#include "ops/out_variant.h"
#include "ops/views.h"

namespace static_runtime {
namespace {

using torch::jit::Node;

// Copies `source` into output `i`, reusing the slot's tensor when it can.
void CopyToOutput(NodeIO& io, size_t i, const at::Tensor& source) {
  WriteOutput(
      io, i, source.scalar_type(), [&] { return source.clone(at::MemoryFormat::Contiguous); },
      [&](at::Tensor& out) {
        out.resize_(source.sizes());
        out.copy_(source);
      });
}

at::ScalarType PromoteAll(const std::vector<at::Tensor>& tensors) {
  at::ScalarType result = tensors.empty() ? DefaultFloat() : tensors[0].scalar_type();
  for (const at::Tensor& tensor : tensors) {
    result = c10::promoteTypes(result, tensor.scalar_type());
  }
  return result;
}

// Tensors followed by dim, as a list input or as separate inputs.
void Concatenate(NodeIO& io, const std::vector<at::Tensor>& tensors, int64_t dim, bool stack) {
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
        KernelKind::kOutVariant, [stack](const Node*) -> KernelOffer {
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

// True if some node of the graph writes to one of its inputs: then a copy
// and an alias are distinguishable, and aliasing ops must stay aliasing.
bool GraphHasWriters(const Node* node) {
  std::vector<const torch::jit::Block*> blocks = {node->owningGraph()->block()};
  while (!blocks.empty()) {
    const torch::jit::Block* block = blocks.back();
    blocks.pop_back();
    for (const Node* n : block->nodes()) {
      for (const torch::jit::Block* sub_block : n->blocks()) blocks.push_back(sub_block);
      const c10::FunctionSchema* schema = n->maybeSchema();
      if (schema == nullptr) continue;
      for (const c10::Argument& argument : schema->arguments()) {
        if (argument.alias_info() != nullptr && argument.alias_info()->isWrite()) return true;
      }
    }
  }
  return false;
}

// Sizes `out` as ATen's empty_like(self, format) lays out its result: for
// Preserve (or no format), the strides of a non-overlapping and dense `self`,
// else the memory format `self` suggests; otherwise `format` itself.
void ResizeLike(at::Tensor& out, const at::Tensor& self, c10::optional<at::MemoryFormat> format) {
  const at::MemoryFormat layout = format.value_or(at::MemoryFormat::Preserve);
  if (layout != at::MemoryFormat::Preserve) {
    out.resize_(self.sizes(), layout);
  } else {
    // As ATen's empty_like(preserve): a dense input's strides, else dense
    // strides in the input's order of dimensions.
    out.resize_({self.numel()});
    out.as_strided_(self.sizes(), self.is_non_overlapping_and_dense()
                                      ? self.strides().vec()
                                      : at::infer_dense_strides(self.sizes(), self.strides()));
  }
}

// An out variant of an op that may return its input: only where nothing in
// the graph writes in place (so a copy and the input itself cannot be told
// apart).
void RegisterMaybeAliasing(const char* name, Kernel kernel) {
  KernelRegistry::Global().RegisterOverload(
      name, "", KernelKind::kOutVariant, [kernel](const Node* node) {
        return GraphHasWriters(node) ? Decline() : KernelOffer(kernel);
      });
}

// contiguous(self, memory_format) returns `self` when it already has that
// layout, else a copy laid out in it.
void RegisterContiguous() {
  RegisterMaybeAliasing("aten::contiguous", [](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    const at::MemoryFormat format = io.Input(1).toMemoryFormat();
    if (format == at::MemoryFormat::Preserve) {
      io.Output(0) = self.contiguous(format);  // ATen's error
      return;
    }
    if (self.is_contiguous(format)) {
      io.Output(0) = self;
      return;
    }
    WriteOutput(
        io, 0, self.scalar_type(), [&] { return self.contiguous(format); },
        [&](at::Tensor& out) {
          ResizeLike(out, self, format);
          out.copy_(self);
        });
  });
}

// type_as(self, other) returns `self` when the dtypes agree, else a copy in
// other's dtype laid out as `self` (to() preserves the layout).
void RegisterTypeAs() {
  RegisterMaybeAliasing("aten::type_as", [](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    const at::ScalarType target = TensorArg(io, 1).scalar_type();
    if (target == self.scalar_type()) {
      io.Output(0) = self;
      return;
    }
    WriteOutput(
        io, 0, target, [&] { return self.to(target); },
        [&](at::Tensor& out) {
          ResizeLike(out, self, at::MemoryFormat::Preserve);
          out.copy_(self);
        });
  });
}

void RegisterCopies() {
  // clone laid out as ATen lays it out (clone.out would copy through a
  // temporary).
  RegisterOut("aten::clone", "", [](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    const auto format = io.Input(1).toOptional<at::MemoryFormat>();
    if (format && *format != at::MemoryFormat::Contiguous &&
        *format != at::MemoryFormat::Preserve) {
      io.Output(0) = at::clone(self, format);
      return;
    }
    WriteOutput(
        io, 0, self.scalar_type(), [&] { return at::clone(self, format); },
        [&](at::Tensor& out) {
          ResizeLike(out, self, format);
          out.copy_(self);
        });
  });
  RegisterContiguous();
  RegisterTypeAs();

  // zeros_like / ones_like / full_like on the CPU, strided.
  const struct {
    const char* name;
    bool has_fill_value;
    double fill;
  } kLike[] = {{"aten::zeros_like", false, 0.0},
               {"aten::ones_like", false, 1.0},
               {"aten::full_like", true, 0.0}};
  for (const auto& like : kLike) {
    RegisterOut(like.name, "", [has_value = like.has_fill_value, fill = like.fill](NodeIO& io) {
      const at::Tensor& self = TensorArg(io, 0);
      const size_t first_option = has_value ? 2 : 1;
      const at::Scalar value = has_value ? io.Input(1).toScalar() : at::Scalar(fill);
      const auto dtype = io.Input(first_option).toOptional<at::ScalarType>();
      const auto layout = io.Input(first_option + 1).toOptional<at::Layout>();
      const auto device = io.Input(first_option + 2).toOptional<at::Device>();
      const auto pin = io.Input(first_option + 3).toOptional<bool>();
      const auto format = io.Input(first_option + 4).toOptional<at::MemoryFormat>();
      auto functional = [&] {
        return at::full_like(self, value, dtype, layout, device, pin, format);
      };
      if ((layout && *layout != at::kStrided) || (device && !device->is_cpu()) ||
          (format && *format != at::MemoryFormat::Contiguous &&
           *format != at::MemoryFormat::Preserve)) {
        io.Output(0) = functional();
        return;
      }
      WriteOutput(io, 0, dtype.value_or(self.scalar_type()), functional, [&](at::Tensor& out) {
        ResizeLike(out, self, format);
        out.fill_(value);
      });
    });
  }
}

// zeros/ones/full(size, *, dtype, layout, device, pin_memory) on the CPU,
// strided: `fill` is the value of zeros and ones; without it (full) the
// value is input 1. (empty stays with the JIT: its values are unspecified, so
// no test could check an out variant against it.)
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

// arange(end), arange(start, end), arange(start, end, step) on the CPU.
void RegisterFactories() {
  RegisterSizedFactory("aten::zeros", 0.0);
  RegisterSizedFactory("aten::ones", 1.0);
  RegisterSizedFactory("aten::full", std::nullopt);

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

void RegisterRewriteOperators() {
  absl::flat_hash_set<std::string> copy_ops;
  for (const ops::CopyVariant& variant : ops::CopyVariants()) {
    if (!copy_ops.insert(variant.copy_op).second) continue;  // squeeze has two overloads
    KernelRegistry::Global().RegisterNodeKind(
        variant.copy_op, KernelKind::kOutVariant, [](const Node* node) -> KernelOffer {
          const ops::CopyVariant::View view = CopyVariantView(node);
          if (view == nullptr) return Decline();
          return [view](NodeIO& io) { CopyToOutput(io, 0, ApplyView(view, io)); };
        });
  }
  // maybe_copy_to: the input itself when no conversion happens (the pass
  // only rewrites `to` where nobody can tell), else a copy into the slot.
  KernelRegistry::Global().RegisterNodeKind(
      "static_runtime::maybe_copy_to", KernelKind::kOutVariant,
      [](const Node* node) -> KernelOffer {
        const std::string overload = OverloadOf(node);
        if (overload != "dtype" && overload != "other") return Decline();
        const bool other = overload == "other";
        return [other](NodeIO& io) {
          const at::Tensor& self = TensorArg(io, 0);
          const at::ScalarType target =
              other ? TensorArg(io, 1).scalar_type() : io.Input(1).toScalarType();
          const bool copy = io.Input(3).toBool();
          const auto format = io.Input(4).toOptional<at::MemoryFormat>();
          if ((other && !TensorArg(io, 1).is_cpu()) ||
              (format && *format != at::MemoryFormat::Preserve)) {
            io.Output(0) = other ? self.to(TensorArg(io, 1), false, copy, format)
                                 : self.to(target, false, copy, format);
            return;
          }
          if (target == self.scalar_type() && !copy) {
            io.Output(0) = self;
            return;
          }
          WriteOutput(
              io, 0, target, [&] { return self.to(target, false, true); },
              [&](at::Tensor& out) {
                ResizeLike(out, self, at::MemoryFormat::Preserve);
                out.copy_(self);
              });
        };
      });

  // split / chunk / unbind with one output per part.
  for (const ops::UnpackedSplit& split : ops::UnpackedSplits()) {
    KernelRegistry::Global().RegisterNodeKind(
        split.op, KernelKind::kOutVariant, [split](const Node*) -> KernelOffer {
          return [split](NodeIO& io) {
            const std::vector<at::Tensor> parts = ApplySplit(split, io);
            for (size_t i = 0; i < parts.size(); ++i) CopyToOutput(io, i, parts[i]);
          };
        });
  }
}

const bool kRegistered = [] {
  RegisterConcatenation();
  RegisterIndexing();
  RegisterCopies();
  RegisterFactories();
  RegisterRewriteOperators();
  return true;
}();

}  // namespace
}  // namespace static_runtime
