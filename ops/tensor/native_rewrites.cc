// Native kernels for the `static_runtime::` operators that preparation
// introduces (ir/operators/operators.h): variadic cat/stack, fused list unpacking,
// dict unpacking, owned references, maybe-copying `to`, and the copying twins
// of view ops. Same results as their JIT registrations, without a stack.
#include <functional>
#include <string>
#include <utility>

#include "ATen/ATen.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "ir/operators/operators.h"
#include "ops/core/registry.h"
#include "ops/tensor/views.h"

namespace static_runtime {
namespace {

using torch::jit::Node;

// Inputs 0..n-2 are tensors, the last one is `dim`.
using TensorVector = absl::InlinedVector<at::Tensor, 8>;
TensorVector TensorsBeforeDim(const NodeIO& io) {
  TensorVector tensors;
  for (size_t i = 0; i + 1 < io.num_inputs(); ++i) {
    tensors.push_back(io.Input(i).toTensor());
  }
  return tensors;
}

void VariadicCat(NodeIO& io) {
  io.Output(0) = at::cat(TensorsBeforeDim(io), io.Input(io.num_inputs() - 1).toInt());
}

void VariadicStack(NodeIO& io) {
  io.Output(0) = at::stack(TensorsBeforeDim(io), io.Input(io.num_inputs() - 1).toInt());
}

void UnpackDict(NodeIO& io) {
  const c10::impl::GenericDict dict = io.Input(0).toGenericDict();
  for (size_t i = 1; i < io.num_inputs(); ++i) {
    auto found = dict.find(io.Input(i));
    TORCH_CHECK(found != dict.end(), "KeyError: ", io.Input(i));
    io.Output(i - 1) = found->value();
  }
}

c10::optional<at::MemoryFormat> MemoryFormatArg(const c10::IValue& value) {
  if (value.isNone()) return c10::nullopt;
  return value.toMemoryFormat();
}

KernelOffer MaybeCopyTo(const Node* node) {
  const std::string overload = OverloadOf(node);
  if (overload == "dtype") {
    return [](NodeIO& io) {
      io.Output(0) = io.Input(0).toTensor().to(io.Input(1).toScalarType(), io.Input(2).toBool(),
                                               io.Input(3).toBool(), MemoryFormatArg(io.Input(4)));
    };
  }
  if (overload == "other") {
    return [](NodeIO& io) {
      io.Output(0) = io.Input(0).toTensor().to(io.Input(1).toTensor(), io.Input(2).toBool(),
                                               io.Input(3).toBool(), MemoryFormatArg(io.Input(4)));
    };
  }
  if (overload == "prim_dtype") {
    return [](NodeIO& io) {
      const at::Tensor& self = io.Input(0).toTensor();
      const bool copy = io.Input(3).toBool();
      if (io.Input(1).isNone() && !copy) {
        io.Output(0) = self;
        return;
      }
      const at::ScalarType dtype = io.Input(1).isNone()
                                       ? self.scalar_type()
                                       : static_cast<at::ScalarType>(io.Input(1).toInt());
      io.Output(0) = self.to(dtype, io.Input(2).toBool(), copy);
    };
  }
  return Decline();
}

KernelOffer CopyVariant(const Node* node) {
  const ops::CopyVariant::View view = CopyVariantView(node);
  if (view == nullptr) return Decline();
  return [view](NodeIO& io) {
    io.Output(0) = ApplyView(view, io).clone(at::MemoryFormat::Contiguous);
  };
}

}  // namespace

void RegisterNativeRewritesKernels(KernelRegistry& registry) {
  // Names, not the ops:: symbols: those are globals of another translation
  // unit and may not be initialized yet during static initialization.
  registry.Add(NativeNodeKind("static_runtime::variadic_cat", ForAnyNode(VariadicCat)));
  registry.Add(NativeNodeKind("static_runtime::variadic_stack", ForAnyNode(VariadicStack)));
  // Each part of a split into its own output, a contiguous copy.
  for (const ops::UnpackedSplit& split : ops::UnpackedSplits()) {
    registry.Add(NativeNodeKind(split.op, ForAnyNode([split](NodeIO& io) {
                                  const std::vector<at::Tensor> parts = ApplySplit(split, io);
                                  for (size_t i = 0; i < parts.size(); ++i) {
                                    io.Output(i) = parts[i].clone(at::MemoryFormat::Contiguous);
                                  }
                                })));
  }
  registry.Add(NativeNodeKind("static_runtime::unpack_dict", ForAnyNode(UnpackDict)));
  registry.Add(NativeNodeKind("static_runtime::var_tuple_unpack", ForAnyNode([](NodeIO& io) {
                                size_t output = 0;
                                for (size_t i = 0; i < io.num_inputs(); ++i) {
                                  for (const c10::IValue& element :
                                       io.Input(i).toTupleRef().elements()) {
                                    io.Output(output++) = element;
                                  }
                                }
                              })));
  registry.Add(NativeNodeKind("static_runtime::owned_ref",
                              ForAnyNode([](NodeIO& io) { io.Output(0) = io.Input(0); })));
  registry.Add(NativeNodeKind("static_runtime::maybe_copy_to", MaybeCopyTo));
  absl::flat_hash_set<std::string> copy_ops;
  for (const ops::CopyVariant& variant : ops::CopyVariants()) {
    if (!copy_ops.insert(variant.copy_op).second) continue;  // squeeze has two overloads
    registry.Add(NativeNodeKind(variant.copy_op, CopyVariant));
  }
}

}  // namespace static_runtime
