// Native kernels for view ops (slice, select, transpose, view, reshape,
// chunk, split, ...) that preparation leaves as views. The common ones make
// their view themselves (ops/tensor/strided_view) when that cannot be told apart
// from ATen's: for an inference tensor, or when the run only reads the view
// (ir/read_only_uses). Otherwise each produces the view by ATen's own CPU
// implementation for an inference tensor inside inference mode
// (ops/core/direct_call.h), through the dispatcher otherwise; chunk and split
// build their parts with ATen's as_strided kernel directly, one call per part
// instead of three dispatches. Same results, aliasing and errors as the JIT's
// operators, without a stack.
#include "ATen/ATen.h"
#include "ATen/NativeFunctions.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "ir/read_only_uses.h"
#include "ops/core/direct_call.h"
#include "ops/core/registry.h"
#include "ops/tensor/strided_view.h"

namespace static_runtime {
namespace {

const at::Tensor& Self(const NodeIO& io) { return io.Input(0).toTensor(); }
int64_t Int(const NodeIO& io, size_t i) { return io.Input(i).toInt(); }
c10::optional<int64_t> OptionalInt(const NodeIO& io, size_t i) {
  return io.Input(i).toOptional<int64_t>();
}

// The view of `self` ops/tensor/strided_view makes for the node's arguments, or
// nullopt (then ATen's).
using FastView = std::optional<at::Tensor> (*)(const at::Tensor& self, const NodeIO& io);
// ATen's view of `self` for the node's arguments.
using AtenView = at::Tensor (*)(const at::Tensor& self, const NodeIO& io);

// `name`.`overload`: `fast`'s view when StridedViewOk allows it (the run only
// reading the node's output is known when the model is loaded), else
// `aten`'s.
void RegisterView(KernelRegistry& registry, absl::string_view name, absl::string_view overload,
                  FastView fast, AtenView aten) {
  registry.Add({KernelOp::Overload(name, overload), NodeKind::kNative,
                [fast, aten](const torch::jit::Node* node) -> KernelOffer {
                  const bool only_read = OnlyReadWithinRun(node->output());
                  return [fast, aten, only_read](NodeIO& io) {
                    const at::Tensor& self = Self(io);
                    if (StridedViewOk(self, only_read)) {
                      if (std::optional<at::Tensor> view = fast(self, io)) {
                        io.Output(0) = *std::move(view);
                        return;
                      }
                    }
                    io.Output(0) = aten(self, io);
                  };
                }});
}

// A list of views as the List[Tensor] the graph expects.
c10::List<at::Tensor> ToList(std::vector<at::Tensor> parts) {
  return c10::List<at::Tensor>(std::move(parts));
}

// `dim` of `self` wrapped to [0, self.dim()), or nullopt when out of range.
c10::optional<int64_t> WrappedDim(const at::Tensor& self, int64_t dim) {
  const int64_t rank = self.dim();
  if (dim < -rank || dim >= rank) return c10::nullopt;
  return dim < 0 ? dim + rank : dim;
}

// The views chunk/split/split_with_sizes make of `self` along `dim`, parts of
// `lengths` one after another from index 0: ATen's narrow, which ends in its
// CPU as_strided kernel, called directly (no dispatch per part). Only for a
// tensor DirectCallOk accepts, with `lengths` non-negative and summing to the
// dimension's size (the caller checks).
c10::List<at::Tensor> ConsecutiveViews(const at::Tensor& self, int64_t dim,
                                       absl::Span<const int64_t> lengths) {
  at::DimVector sizes(self.sizes().begin(), self.sizes().end());
  const at::IntArrayRef strides = self.strides();
  int64_t offset = self.storage_offset();
  c10::List<at::Tensor> parts;
  parts.reserve(lengths.size());
  for (int64_t length : lengths) {
    sizes[dim] = length;
    parts.push_back(at::native::as_strided_tensorimpl(self, sizes, strides, offset));
    offset += length * strides[dim];
  }
  return parts;
}

// The part lengths of split(split_size) on a dimension of `dim_size` > 0.
absl::InlinedVector<int64_t, 8> EqualSplits(int64_t dim_size, int64_t split_size) {
  const int64_t num_splits = (dim_size + split_size - 1) / split_size;
  absl::InlinedVector<int64_t, 8> lengths(num_splits, split_size);
  lengths.back() = dim_size - split_size * (num_splits - 1);
  return lengths;
}

// split(self, split_size, dim) as views when the fast path applies, else
// nullopt (ATen then gives its result or error).
c10::optional<c10::List<at::Tensor>> FastSplit(const at::Tensor& self, int64_t split_size,
                                               int64_t dim) {
  if (!DirectCallOk(self) || split_size <= 0) return c10::nullopt;
  const c10::optional<int64_t> wrapped = WrappedDim(self, dim);
  if (!wrapped || self.size(*wrapped) <= 0) return c10::nullopt;
  return ConsecutiveViews(self, *wrapped, EqualSplits(self.size(*wrapped), split_size));
}

c10::optional<c10::List<at::Tensor>> FastSplitWithSizes(const at::Tensor& self,
                                                        at::IntArrayRef lengths, int64_t dim) {
  if (!DirectCallOk(self) || lengths.empty()) return c10::nullopt;
  const c10::optional<int64_t> wrapped = WrappedDim(self, dim);
  if (!wrapped) return c10::nullopt;
  int64_t total = 0;
  for (int64_t length : lengths) {
    if (length < 0) return c10::nullopt;
    total += length;
  }
  if (total != self.size(*wrapped)) return c10::nullopt;
  return ConsecutiveViews(self, *wrapped, lengths);
}

}  // namespace

void RegisterNativeViewsKernels(KernelRegistry& registry) {
  RegisterView(
      registry, "aten::slice", "Tensor",
      [](const at::Tensor& self, const NodeIO& io) {
        return SliceView(self, Int(io, 1), OptionalInt(io, 2), OptionalInt(io, 3), Int(io, 4));
      },
      [](const at::Tensor& self, const NodeIO& io) {
        return SR_DIRECT_OR_DISPATCH(self, slice, Int(io, 1), OptionalInt(io, 2),
                                     OptionalInt(io, 3), Int(io, 4));
      });
  RegisterView(
      registry, "aten::select", "int",
      [](const at::Tensor& self, const NodeIO& io) {
        return SelectView(self, Int(io, 1), Int(io, 2));
      },
      [](const at::Tensor& self, const NodeIO& io) {
        return SR_DIRECT_OR_DISPATCH(self, select, Int(io, 1), Int(io, 2));
      });
  RegisterView(
      registry, "aten::narrow", "",
      [](const at::Tensor& self, const NodeIO& io) {
        return NarrowView(self, Int(io, 1), Int(io, 2), Int(io, 3));
      },
      [](const at::Tensor& self, const NodeIO& io) {
        return SR_DIRECT_OR_DISPATCH(self, narrow, Int(io, 1), Int(io, 2), Int(io, 3));
      });
  RegisterView(
      registry, "aten::squeeze", "",
      [](const at::Tensor& self, const NodeIO& io) { return SqueezeView(self); },
      [](const at::Tensor& self, const NodeIO& io) {
        return SR_DIRECT_OR_DISPATCH(self, squeeze);
      });
  RegisterView(
      registry, "aten::squeeze", "dim",
      [](const at::Tensor& self, const NodeIO& io) { return SqueezeDimView(self, Int(io, 1)); },
      [](const at::Tensor& self, const NodeIO& io) {
        return SR_DIRECT_OR_DISPATCH(self, squeeze, Int(io, 1));
      });
  RegisterView(
      registry, "aten::unsqueeze", "",
      [](const at::Tensor& self, const NodeIO& io) { return UnsqueezeView(self, Int(io, 1)); },
      [](const at::Tensor& self, const NodeIO& io) {
        return SR_DIRECT_OR_DISPATCH(self, unsqueeze, Int(io, 1));
      });
  RegisterView(
      registry, "aten::transpose", "int",
      [](const at::Tensor& self, const NodeIO& io) {
        return TransposeView(self, Int(io, 1), Int(io, 2));
      },
      [](const at::Tensor& self, const NodeIO& io) {
        return SR_DIRECT_OR_DISPATCH(self, transpose, Int(io, 1), Int(io, 2));
      });
  RegisterView(
      registry, "aten::t", "", [](const at::Tensor& self, const NodeIO& io) { return TView(self); },
      [](const at::Tensor& self, const NodeIO& io) { return SR_DIRECT_OR_DISPATCH(self, t); });
  registry.Add(Native("aten::numpy_T", "", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    io.Output(0) = SR_DIRECT_OR_DISPATCH(self, numpy_T);
  }));
  RegisterView(
      registry, "aten::permute", "",
      [](const at::Tensor& self, const NodeIO& io) {
        return PermuteView(self, io.Input(1).toDimVector());
      },
      [](const at::Tensor& self, const NodeIO& io) {
        const at::DimVector dims = io.Input(1).toDimVector();
        return SR_DIRECT_OR_DISPATCH(self, permute, dims);
      });
  registry.Add(Native("aten::movedim", "int", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    io.Output(0) = SR_DIRECT_OR_DISPATCH(self, movedim, Int(io, 1), Int(io, 2));
  }));
  RegisterView(
      registry, "aten::expand", "",
      [](const at::Tensor& self, const NodeIO& io) {
        return ExpandView(self, io.Input(1).toDimVector());
      },
      [](const at::Tensor& self, const NodeIO& io) {
        const at::DimVector size = io.Input(1).toDimVector();
        return SR_DIRECT_OR_DISPATCH(self, expand, size, io.Input(2).toBool());
      });
  registry.Add(Native("aten::expand_as", "", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    io.Output(0) = SR_DIRECT_OR_DISPATCH(self, expand_as, io.Input(1).toTensor());
  }));
  RegisterView(
      registry, "aten::view", "",
      [](const at::Tensor& self, const NodeIO& io) {
        return ReshapeView(self, io.Input(1).toDimVector());
      },
      [](const at::Tensor& self, const NodeIO& io) {
        const at::DimVector size = io.Input(1).toDimVector();
        return SR_DIRECT_OR_DISPATCH(self, view, size);
      });
  registry.Add(Native("aten::view_as", "", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    io.Output(0) = SR_DIRECT_OR_DISPATCH(self, view_as, io.Input(1).toTensor());
  }));
  // reshape and flatten are views when the strides allow, copies otherwise.
  RegisterView(
      registry, "aten::reshape", "",
      [](const at::Tensor& self, const NodeIO& io) {
        return ReshapeView(self, io.Input(1).toDimVector());
      },
      [](const at::Tensor& self, const NodeIO& io) {
        const at::DimVector shape = io.Input(1).toDimVector();
        return DirectCallOk(self)
                   ? at::native::reshape_symint(self, c10::fromIntArrayRefUnchecked(shape))
                   : self.reshape(shape);
      });
  registry.Add(Native("aten::reshape_as", "", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    io.Output(0) = SR_DIRECT_OR_DISPATCH(self, reshape_as, io.Input(1).toTensor());
  }));
  RegisterView(
      registry, "aten::flatten", "using_ints",
      [](const at::Tensor& self, const NodeIO& io) {
        return FlattenView(self, Int(io, 1), Int(io, 2));
      },
      [](const at::Tensor& self, const NodeIO& io) {
        return SR_DIRECT_OR_DISPATCH(self, flatten, Int(io, 1), Int(io, 2));
      });
  registry.Add(Native("aten::unflatten", "int", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    const at::DimVector sizes = io.Input(2).toDimVector();
    io.Output(0) = SR_DIRECT_OR_DISPATCH(self, unflatten, Int(io, 1), sizes);
  }));
  registry.Add(Native("aten::diagonal", "", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    io.Output(0) = SR_DIRECT_OR_DISPATCH(self, diagonal, Int(io, 1), Int(io, 2), Int(io, 3));
  }));
  registry.Add(Native("aten::detach", "", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    io.Output(0) = SR_DIRECT_OR_DISPATCH(self, detach);
  }));
  registry.Add(Native("aten::alias", "", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    io.Output(0) = DirectCallOk(self) ? at::native::alias(self) : at::alias(self);
  }));
  // chunk(n) is split(ceil(size / n)) for a non-empty dimension.
  registry.Add(Native("aten::chunk", "", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    const int64_t chunks = Int(io, 1), dim = Int(io, 2);
    const c10::optional<int64_t> wrapped = WrappedDim(self, dim);
    if (chunks > 0 && wrapped) {
      const int64_t dim_size = self.size(*wrapped);
      if (auto parts = FastSplit(self, (dim_size + chunks - 1) / chunks, dim)) {
        io.Output(0) = *std::move(parts);
        return;
      }
    }
    io.Output(0) = ToList(SR_DIRECT_OR_DISPATCH(self, chunk, chunks, dim));
  }));
  registry.Add(Native("aten::split", "Tensor", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    if (auto parts = FastSplit(self, Int(io, 1), Int(io, 2))) {
      io.Output(0) = *std::move(parts);
      return;
    }
    io.Output(0) = ToList(SR_DIRECT_OR_DISPATCH(self, split, Int(io, 1), Int(io, 2)));
  }));
  registry.Add(Native("aten::split", "sizes", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    const at::DimVector sizes = io.Input(1).toDimVector();
    if (auto parts = FastSplitWithSizes(self, sizes, Int(io, 2))) {
      io.Output(0) = *std::move(parts);
      return;
    }
    io.Output(0) = ToList(SR_DIRECT_OR_DISPATCH(self, split, sizes, Int(io, 2)));
  }));
  registry.Add(Native("aten::split_with_sizes", "", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    const at::DimVector sizes = io.Input(1).toDimVector();
    if (auto parts = FastSplitWithSizes(self, sizes, Int(io, 2))) {
      io.Output(0) = *std::move(parts);
      return;
    }
    io.Output(0) = ToList(SR_DIRECT_OR_DISPATCH(self, split_with_sizes, sizes, Int(io, 2)));
  }));
  registry.Add(Native("aten::unbind", "int", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    io.Output(0) = ToList(SR_DIRECT_OR_DISPATCH(self, unbind, Int(io, 1)));
  }));
}

}  // namespace static_runtime
