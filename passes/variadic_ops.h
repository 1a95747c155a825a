// UseVariadicOps: `aten::cat(prim::ListConstruct(a, b, ...), dim)` (and the
// same for `aten::stack`) becomes `static_runtime::variadic_cat(a, b, ..., dim)`
// when the list is used by nothing else, so no list is built at run time.
#ifndef STATIC_RUNTIME_PASSES_VARIADIC_OPS_H_
#define STATIC_RUNTIME_PASSES_VARIADIC_OPS_H_

#include <memory>

#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

// Returns true if the graph changed.
bool UseVariadicOps(const std::shared_ptr<torch::jit::Graph>& graph);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_VARIADIC_OPS_H_
