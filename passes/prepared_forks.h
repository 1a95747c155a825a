// Forked subgraphs prepared ahead of time, for compiled packages: the writer
// prepares every prim::fork's subgraph and marks the fork, so that the
// reader binds it as it is, without running a pass. Internal to the runtime
// (runtime/package_writer.cc marks, runtime/forked_call.cc binds).
#ifndef STATIC_RUNTIME_PASSES_PREPARED_FORKS_H_
#define STATIC_RUNTIME_PASSES_PREPARED_FORKS_H_

#include <memory>

#include "absl/status/statusor.h"
#include "options/options.h"
#include "passes/prepare.h"
#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

// The int attribute (1) of a prim::fork whose subgraph is already prepared.
c10::Symbol PreparedSubgraphAttribute();

// Replaces, everywhere in `graph` (blocks and nested forks included), each
// prim::fork's subgraph by PrepareGraph's result with `options` and marks it
// with PreparedSubgraphAttribute. A subgraph that cannot be prepared stays
// as it is, unmarked.
void PrepareForkedSubgraphs(torch::jit::Graph& graph, const Options& options);

// A marked subgraph with the schema its inputs give (as PrepareGraph derives
// it), after preparation's final check (CheckStaticRunnable): no pass runs.
absl::StatusOr<PreparedGraph> AsPrepared(std::shared_ptr<torch::jit::Graph> graph);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_PREPARED_FORKS_H_
