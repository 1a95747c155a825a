// The operators that preparation introduces, in the `static_runtime::`
// namespace. They are registered with the TorchScript JIT as real operators (so
// the JIT interpreter can run a prepared graph and tests can compare it with
// the original); the runtime binds them to its own kernels.
//
// Names are chosen not to collide with the operators of PyTorch's own Static
// Runtime, which live in the same namespace inside libtorch_cpu.so.
#ifndef STATIC_RUNTIME_PASSES_OPERATORS_H_
#define STATIC_RUNTIME_PASSES_OPERATORS_H_

#include <string>
#include <vector>

#include "ATen/core/interned_strings.h"

namespace static_runtime {
namespace ops {

// variadic_cat(Tensor... tensors, int dim) -> Tensor
extern const c10::Symbol kVariadicCat;
// variadic_stack(Tensor... tensors, int dim) -> Tensor
extern const c10::Symbol kVariadicStack;
// <op>_unpacked(<the op's arguments>) -> Tensor..., one fresh (contiguous copy)
// output per list element
extern const c10::Symbol kSplitUnpacked;
extern const c10::Symbol kSplitWithSizesUnpacked;
extern const c10::Symbol kChunkUnpacked;
extern const c10::Symbol kUnbindUnpacked;
// unpack_dict(Dict d, key...) -> value..., one output per key
extern const c10::Symbol kUnpackDict;
// owned_ref(t x) -> t: a reference the runtime owns and may hand out.
extern const c10::Symbol kOwnedRef;
// maybe_copy_to.<overload>(<aten::to's arguments>): aten::to, whose result the
// runtime may place in memory it owns when a conversion happens.
extern const c10::Symbol kMaybeCopyTo;

// A view op overload and the copying op that replaces it. The copy has the
// view's arguments and overload name, and a fresh (non-aliasing) result.
struct CopyVariant {
  const char* view_op;        // e.g. "aten::flatten"
  const char* view_overload;  // e.g. "using_ints"; "" for the default overload
  const char* copy_op;        // e.g. "static_runtime::copy_flatten"
};
const std::vector<CopyVariant>& CopyVariants();

// Makes sure the operators above are registered with the JIT. Registration
// happens at static initialization; calling this keeps the linker from
// dropping it and is cheap.
void EnsureOperatorsRegistered();

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_OPERATORS_H_
