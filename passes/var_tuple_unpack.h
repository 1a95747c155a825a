// UseVarTupleUnpack: a run of adjacent `prim::TupleUnpack` nodes (in any
// block) becomes one node `static_runtime::var_tuple_unpack(t1, t2, ...)`
// whose outputs are the elements of t1, then of t2, ... (PyTorch's Static
// Runtime's VarTupleUnpack): one kernel call instead of one per tuple.
// Unpacking reads its tuples and nothing else, so merging adjacent ones
// changes no value and no order of effects. Runs last among the rewrites:
// the merged node's variadic schema tells the JIT's alias analysis less
// than TupleUnpack's own rule does.
#ifndef STATIC_RUNTIME_PASSES_VAR_TUPLE_UNPACK_H_
#define STATIC_RUNTIME_PASSES_VAR_TUPLE_UNPACK_H_

#include <memory>

#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

// Returns true if the graph changed.
bool UseVarTupleUnpack(const std::shared_ptr<torch::jit::Graph>& graph);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_VAR_TUPLE_UNPACK_H_
