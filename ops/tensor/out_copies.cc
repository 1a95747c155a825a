// Out-variant kernels that copy a tensor: clone, contiguous, type_as,
// zeros_like/ones_like/full_like, the copy variants of views, maybe-copying
// `to`, split/chunk/unbind with unpacked outputs, and pixel_shuffle and
// pixel_unshuffle (permuted copies). Ops that may return
// their input (contiguous, type_as) keep doing so where the graph writes in
// place. aten::narrow_copy stays in fallback: LibTorch 1.13's narrow_copy
// ignores the strides of non-contiguous inputs, and the runtime must give
// what the JIT gives.
#include <cstring>
#include <numeric>
#include <optional>
#include <vector>

#include "ATen/ATen.h"
#include "ATen/ExpandUtils.h"
#include "ATen/NativeFunctions.h"
#include "absl/container/flat_hash_set.h"
#include "ir/operators/operators.h"
#include "ops/core/out_variant.h"
#include "ops/tensor/concat_copy.h"
#include "ops/tensor/row_copy.h"
#include "ops/tensor/views.h"

namespace static_runtime {
namespace {

using torch::jit::Node;
// Copies `source` into output `i` (contiguous), reusing the slot's tensor
// when it can. Where nothing needs autograd, a contiguous source is one
// memcpy, one whose innermost elements are adjacent a memcpy a row
// (ops/tensor/row_copy.h) and a small strided one a direct copy
// (ops/tensor/concat_copy.h), without ATen's resize_ and copy_ dispatches
// and TensorIterator.
void CopyToOutput(NodeIO& io, size_t i, const at::Tensor& source) {
  if (CpuKernelsServe(source) && !source.has_names()) {
    at::Tensor& target = ContiguousOutput(io, i, source.scalar_type(), source.sizes());
    if (source.is_contiguous()) {
      if (source.numel() > 0) std::memcpy(target.data_ptr(), source.data_ptr(), source.nbytes());
      return;
    }
    if (CopyRows(source, target)) return;
    if (ConcatSizes({source}, 0, /*stack=*/false)) {
      ConcatInto({source}, 0, /*stack=*/false, target);
      return;
    }
  }
  WriteOutput(
      io, i, source.scalar_type(), [&] { return source.clone(at::MemoryFormat::Contiguous); },
      [&](at::Tensor& out) {
        out.resize_(source.sizes());
        out.copy_(source);
      });
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
void RegisterMaybeAliasing(KernelRegistry& registry, const char* name, Kernel kernel) {
  registry.Add({KernelOp::Overload(name, ""), NodeKind::kOutVariant, [kernel](const Node* node) {
                  return GraphHasWriters(node) ? Decline() : KernelOffer(kernel);
                }});
}

// contiguous(self, memory_format) returns `self` when it already has that
// layout, else a copy laid out in it.
void RegisterContiguous(KernelRegistry& registry) {
  RegisterMaybeAliasing(registry, "aten::contiguous", [](NodeIO& io) {
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
    if (format == at::MemoryFormat::Contiguous) {
      CopyToOutput(io, 0, self);
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
void RegisterTypeAs(KernelRegistry& registry) {
  RegisterMaybeAliasing(registry, "aten::type_as", [](NodeIO& io) {
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

void RegisterCopies(KernelRegistry& registry) {
  // clone laid out as ATen lays it out (clone.out would copy through a
  // temporary).
  registry.Add(OutVariant("aten::clone", "", [](NodeIO& io) {
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
  }));
  RegisterContiguous(registry);
  RegisterTypeAs(registry);

  // empty_like / zeros_like / ones_like / full_like on the CPU, strided
  // (empty_like's result is left as the planned memory holds it).
  const struct {
    const char* name;
    bool has_fill_value;
    std::optional<double> fill;
  } kLike[] = {{"aten::empty_like", false, std::nullopt},
               {"aten::zeros_like", false, 0.0},
               {"aten::ones_like", false, 1.0},
               {"aten::full_like", true, 0.0}};
  for (const auto& like : kLike) {
    registry.Add(
        OutVariant(like.name, "", [has_value = like.has_fill_value, fill = like.fill](NodeIO& io) {
          const at::Tensor& self = TensorArg(io, 0);
          const size_t first_option = has_value ? 2 : 1;
          const std::optional<at::Scalar> value =
              has_value ? std::optional<at::Scalar>(io.Input(1).toScalar())
                        : (fill ? std::optional<at::Scalar>(*fill) : std::nullopt);
          const auto dtype = io.Input(first_option).toOptional<at::ScalarType>();
          const auto layout = io.Input(first_option + 1).toOptional<at::Layout>();
          const auto device = io.Input(first_option + 2).toOptional<at::Device>();
          const auto pin = io.Input(first_option + 3).toOptional<bool>();
          const auto format = io.Input(first_option + 4).toOptional<at::MemoryFormat>();
          auto functional = [&] {
            return value ? at::full_like(self, *value, dtype, layout, device, pin, format)
                         : at::empty_like(self, dtype, layout, device, pin, format);
          };
          if ((layout && *layout != at::kStrided) || (device && !device->is_cpu()) ||
              (format && *format != at::MemoryFormat::Contiguous &&
               *format != at::MemoryFormat::Preserve)) {
            io.Output(0) = functional();
            return;
          }
          WriteOutput(io, 0, dtype.value_or(self.scalar_type()), functional, [&](at::Tensor& out) {
            ResizeLike(out, self, format);
            if (value) out.fill_(*value);
          });
        }));
  }
}

// pixel_shuffle(x, r), [*, C r^2, H, W] -> [*, C, H r, W r], and
// pixel_unshuffle(x, r), its inverse: one permuted copy of the input into a
// contiguous result (their out forms copy through a temporary). A channels-
// last image runs ATen's op, whose result keeps that layout; so do the
// arguments ATen refuses.
void RegisterPixelShuffles(KernelRegistry& registry) {
  for (const bool shuffle : {true, false}) {
    registry.Add(OutVariant(
        shuffle ? "aten::pixel_shuffle" : "aten::pixel_unshuffle", "", [shuffle](NodeIO& io) {
          const at::Tensor& self = TensorArg(io, 0);
          const int64_t r = io.Input(1).toInt();
          auto functional = [&] {
            return shuffle ? at::pixel_shuffle(self, r) : at::pixel_unshuffle(self, r);
          };
          const int64_t rank = self.dim();
          if (rank < 3 || r < 1 || self.suggest_memory_format() != at::MemoryFormat::Contiguous) {
            io.Output(0) = functional();
            return;
          }
          const int64_t c = self.size(-3), h = self.size(-2), w = self.size(-1);
          if (shuffle ? c % (r * r) != 0 : h % r != 0 || w % r != 0) {
            io.Output(0) = functional();
            return;
          }
          // The input with its channels (or sides) split by r, its dims permuted
          // into the result's order, and the result viewed the same way; the
          // leading dims stay as they are.
          std::vector<int64_t> sizes(self.sizes().begin(), self.sizes().end() - 3);
          std::vector<int64_t> source_view = sizes, result_view = sizes, order(rank - 3);
          std::iota(order.begin(), order.end(), 0);
          const int64_t k = rank - 3;
          if (shuffle) {
            const int64_t channels = c / (r * r);
            source_view.insert(source_view.end(), {channels, r, r, h, w});
            order.insert(order.end(), {k, k + 3, k + 1, k + 4, k + 2});
            result_view.insert(result_view.end(), {channels, h, r, w, r});
            sizes.insert(sizes.end(), {channels, h * r, w * r});
          } else {
            source_view.insert(source_view.end(), {c, h / r, r, w / r, r});
            order.insert(order.end(), {k, k + 2, k + 4, k + 1, k + 3});
            result_view.insert(result_view.end(), {c, r, r, h / r, w / r});
            sizes.insert(sizes.end(), {c * r * r, h / r, w / r});
          }
          WriteOutput(io, 0, self.scalar_type(), functional, [&](at::Tensor& out) {
            out.resize_(sizes);
            out.view(result_view).copy_(self.view(source_view).permute(order));
          });
        }));
  }
}

void RegisterRewriteOperators(KernelRegistry& registry) {
  absl::flat_hash_set<std::string> copy_ops;
  for (const ops::CopyVariant& variant : ops::CopyVariants()) {
    if (!copy_ops.insert(variant.copy_op).second) continue;  // squeeze has two overloads
    registry.Add({KernelOp::AnyNodeOf(variant.copy_op), NodeKind::kOutVariant,
                  [](const Node* node) -> KernelOffer {
                    const ops::CopyVariant::View view = CopyVariantView(node);
                    if (view == nullptr) return Decline();
                    return [view](NodeIO& io) { CopyToOutput(io, 0, ApplyView(view, io)); };
                  }});
  }
  // maybe_copy_to: the input itself when no conversion happens (the pass
  // only rewrites `to` where nobody can tell), else a copy into the slot.
  registry.Add({KernelOp::AnyNodeOf("static_runtime::maybe_copy_to"), NodeKind::kOutVariant,
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
                }});

  // split / chunk / unbind with one output per part.
  for (const ops::UnpackedSplit& split : ops::UnpackedSplits()) {
    registry.Add(
        {KernelOp::AnyNodeOf(split.op), NodeKind::kOutVariant, [split](const Node*) -> KernelOffer {
           return [split](NodeIO& io) {
             const std::vector<at::Tensor> parts = ApplySplit(split, io);
             for (size_t i = 0; i < parts.size(); ++i) CopyToOutput(io, i, parts[i]);
           };
         }});
  }
}

}  // namespace

void RegisterOutCopiesKernels(KernelRegistry& registry) {
  RegisterCopies(registry);
  RegisterPixelShuffles(registry);
  RegisterRewriteOperators(registry);
}

}  // namespace static_runtime
