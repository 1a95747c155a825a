// InlineForks: a model's asynchronous calls (prim::fork of a subgraph, and
// aten::wait on its future) run synchronously: each fork's subgraph is
// inlined where the fork is, and each wait becomes the forked result. Valid
// for any program (running a forked call at once, in program order, is one
// of the schedules the JIT allows), but without inter-op parallelism.
//
// Only when every fork's future is used by aten::wait alone: a future that
// is returned, stored in a container or passed on leaves the graph as it is
// (the fork kernel of ops/prim/native_async.cc then runs each fork at once).
#ifndef STATIC_RUNTIME_PASSES_INLINE_FORKS_H_
#define STATIC_RUNTIME_PASSES_INLINE_FORKS_H_

#include <memory>

#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

// Returns true if the graph changed.
bool InlineForks(const std::shared_ptr<torch::jit::Graph>& graph);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_INLINE_FORKS_H_
