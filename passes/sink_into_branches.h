// SinkIntoBranches: a node whose results are read only inside one branch of a
// later prim::If of its block moves to the start of that branch, so it runs
// only when the branch does. The case it is for: `torch._assert(cond,
// f"...")` and `if not cond: raise ValueError(f"...")` build their message
// (aten::format, aten::str, the sizes it prints) on every call, though only
// the raise reads it; torchvision's models do so several times per forward.
// Only nodes that cannot tell the difference move: no side effects, not
// nondeterministic, no sub-blocks, no schema that mutates, inputs no node of
// the graph writes, and results that hold no tensor (a tensor computed in the
// outer block is planned, inside a branch it would be allocated). Never into
// a loop body.
#ifndef STATIC_RUNTIME_PASSES_SINK_INTO_BRANCHES_H_
#define STATIC_RUNTIME_PASSES_SINK_INTO_BRANCHES_H_

#include <memory>

#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

// Returns true if the graph changed.
bool SinkIntoBranches(const std::shared_ptr<torch::jit::Graph>& graph);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_SINK_INTO_BRANCHES_H_
