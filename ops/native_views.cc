// Native kernels for view ops (slice, select, transpose, view, reshape,
// chunk, split, ...) that preparation leaves as views: each produces the view
// directly, by ATen's own CPU implementation for an inference tensor inside
// inference mode (ops/direct_call.h), through the dispatcher otherwise. Same
// results, aliasing and errors as the JIT's operators, without a stack.
#include "ATen/ATen.h"
#include "ATen/NativeFunctions.h"
#include "ops/direct_call.h"
#include "ops/registry.h"

namespace static_runtime {
namespace {

const at::Tensor& Self(const NodeIO& io) { return io.Input(0).toTensor(); }
int64_t Int(const NodeIO& io, size_t i) { return io.Input(i).toInt(); }
c10::optional<int64_t> OptionalInt(const NodeIO& io, size_t i) {
  return io.Input(i).toOptional<int64_t>();
}

// A list of views as the List[Tensor] the graph expects.
c10::List<at::Tensor> ToList(std::vector<at::Tensor> parts) {
  return c10::List<at::Tensor>(std::move(parts));
}

const bool kRegistered = [] {
  RegisterNativeOverload("aten::slice", "Tensor", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    io.Output(0) = SR_DIRECT_OR_DISPATCH(self, slice, Int(io, 1), OptionalInt(io, 2),
                                         OptionalInt(io, 3), Int(io, 4));
  });
  RegisterNativeOverload("aten::select", "int", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    io.Output(0) = SR_DIRECT_OR_DISPATCH(self, select, Int(io, 1), Int(io, 2));
  });
  RegisterNativeOverload("aten::narrow", "", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    io.Output(0) = SR_DIRECT_OR_DISPATCH(self, narrow, Int(io, 1), Int(io, 2), Int(io, 3));
  });
  RegisterNativeOverload("aten::squeeze", "", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    io.Output(0) = SR_DIRECT_OR_DISPATCH(self, squeeze);
  });
  RegisterNativeOverload("aten::squeeze", "dim", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    io.Output(0) = SR_DIRECT_OR_DISPATCH(self, squeeze, Int(io, 1));
  });
  RegisterNativeOverload("aten::unsqueeze", "", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    io.Output(0) = SR_DIRECT_OR_DISPATCH(self, unsqueeze, Int(io, 1));
  });
  RegisterNativeOverload("aten::transpose", "int", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    io.Output(0) = SR_DIRECT_OR_DISPATCH(self, transpose, Int(io, 1), Int(io, 2));
  });
  RegisterNativeOverload("aten::t", "", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    io.Output(0) = SR_DIRECT_OR_DISPATCH(self, t);
  });
  RegisterNativeOverload("aten::numpy_T", "", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    io.Output(0) = SR_DIRECT_OR_DISPATCH(self, numpy_T);
  });
  RegisterNativeOverload("aten::permute", "", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    const at::DimVector dims = io.Input(1).toDimVector();
    io.Output(0) = SR_DIRECT_OR_DISPATCH(self, permute, dims);
  });
  RegisterNativeOverload("aten::movedim", "int", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    io.Output(0) = SR_DIRECT_OR_DISPATCH(self, movedim, Int(io, 1), Int(io, 2));
  });
  RegisterNativeOverload("aten::expand", "", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    const at::DimVector size = io.Input(1).toDimVector();
    io.Output(0) = SR_DIRECT_OR_DISPATCH(self, expand, size, io.Input(2).toBool());
  });
  RegisterNativeOverload("aten::expand_as", "", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    io.Output(0) = SR_DIRECT_OR_DISPATCH(self, expand_as, io.Input(1).toTensor());
  });
  RegisterNativeOverload("aten::view", "", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    const at::DimVector size = io.Input(1).toDimVector();
    io.Output(0) = SR_DIRECT_OR_DISPATCH(self, view, size);
  });
  RegisterNativeOverload("aten::view_as", "", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    io.Output(0) = SR_DIRECT_OR_DISPATCH(self, view_as, io.Input(1).toTensor());
  });
  // reshape and flatten are views when the strides allow, copies otherwise.
  RegisterNativeOverload("aten::reshape", "", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    const at::DimVector shape = io.Input(1).toDimVector();
    io.Output(0) = DirectCallOk(self)
                       ? at::native::reshape_symint(self, c10::fromIntArrayRefUnchecked(shape))
                       : self.reshape(shape);
  });
  RegisterNativeOverload("aten::reshape_as", "", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    io.Output(0) = SR_DIRECT_OR_DISPATCH(self, reshape_as, io.Input(1).toTensor());
  });
  RegisterNativeOverload("aten::flatten", "using_ints", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    io.Output(0) = SR_DIRECT_OR_DISPATCH(self, flatten, Int(io, 1), Int(io, 2));
  });
  RegisterNativeOverload("aten::unflatten", "int", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    const at::DimVector sizes = io.Input(2).toDimVector();
    io.Output(0) = SR_DIRECT_OR_DISPATCH(self, unflatten, Int(io, 1), sizes);
  });
  RegisterNativeOverload("aten::diagonal", "", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    io.Output(0) =
        SR_DIRECT_OR_DISPATCH(self, diagonal, Int(io, 1), Int(io, 2), Int(io, 3));
  });
  RegisterNativeOverload("aten::detach", "", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    io.Output(0) = SR_DIRECT_OR_DISPATCH(self, detach);
  });
  RegisterNativeOverload("aten::alias", "", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    io.Output(0) = DirectCallOk(self) ? at::native::alias(self) : at::alias(self);
  });
  RegisterNativeOverload("aten::chunk", "", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    io.Output(0) = ToList(SR_DIRECT_OR_DISPATCH(self, chunk, Int(io, 1), Int(io, 2)));
  });
  RegisterNativeOverload("aten::split", "Tensor", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    io.Output(0) = ToList(SR_DIRECT_OR_DISPATCH(self, split, Int(io, 1), Int(io, 2)));
  });
  RegisterNativeOverload("aten::split", "sizes", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    const at::DimVector sizes = io.Input(1).toDimVector();
    io.Output(0) = ToList(SR_DIRECT_OR_DISPATCH(self, split, sizes, Int(io, 2)));
  });
  RegisterNativeOverload("aten::split_with_sizes", "", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    const at::DimVector sizes = io.Input(1).toDimVector();
    io.Output(0) =
        ToList(SR_DIRECT_OR_DISPATCH(self, split_with_sizes, sizes, Int(io, 2)));
  });
  RegisterNativeOverload("aten::unbind", "int", [](NodeIO& io) {
    const at::Tensor& self = Self(io);
    io.Output(0) = ToList(SR_DIRECT_OR_DISPATCH(self, unbind, Int(io, 1)));
  });
  return true;
}();

}  // namespace
}  // namespace static_runtime
