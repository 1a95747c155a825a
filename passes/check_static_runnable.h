// CheckStaticRunnable: decides whether a prepared graph can run on the static
// runtime. On failure the Status lists every offending node, one per line, with
// its kind, its source range and the reason: a call left after inlining, a
// fork without a subgraph, a constant dtype, layout or memory format that
// names none. Control flow (prim::If, prim::Loop), attribute access on
// objects and modules, object creation, calls into Python (prim::PythonOp,
// which the JIT's own operator runs where Python is loaded) and writes to
// graph inputs (with the JIT's semantics: the caller sees them) are allowed.
//
// GraphInputWrites: the nodes that write to a graph input in place (a
// tensor, or a list or dict the caller passed), one description per write,
// for tools that warn about them (the caller's values change, as in the JIT).
#ifndef STATIC_RUNTIME_PASSES_CHECK_STATIC_RUNNABLE_H_
#define STATIC_RUNTIME_PASSES_CHECK_STATIC_RUNNABLE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

absl::Status CheckStaticRunnable(const std::shared_ptr<torch::jit::Graph>& graph);

std::vector<std::string> GraphInputWrites(const std::shared_ptr<torch::jit::Graph>& graph);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_CHECK_STATIC_RUNNABLE_H_
