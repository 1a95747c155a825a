// CheckStaticRunnable: decides whether a prepared graph can run on the static
// runtime. On failure the Status lists every offending node, one per line, with
// its kind, its source range and the reason: a call left after inlining,
// attribute access on a module (the module was not frozen), a write to a graph
// input that tensor-mutation removal could not eliminate, or a node kind the
// runtime does not support (fork/wait, object creation, Python ops).
// Control flow (prim::If, prim::Loop) is allowed.
#ifndef STATIC_RUNTIME_PASSES_CHECK_STATIC_RUNNABLE_H_
#define STATIC_RUNTIME_PASSES_CHECK_STATIC_RUNNABLE_H_

#include <memory>

#include "absl/status/status.h"
#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

absl::Status CheckStaticRunnable(const std::shared_ptr<torch::jit::Graph>& graph);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_CHECK_STATIC_RUNNABLE_H_
