#include "passes/prepared_forks.h"

#include <utility>

#include "errors/status_macros.h"
#include "passes/check_static_runnable.h"
#include "passes/graph_schema.h"

namespace static_runtime {
namespace {

void PrepareForkedSubgraphsIn(torch::jit::Block* block, const Options& options) {
  for (torch::jit::Node* node : block->nodes()) {
    for (torch::jit::Block* sub_block : node->blocks())
      PrepareForkedSubgraphsIn(sub_block, options);
    if (node->kind() != c10::prim::fork || !node->hasAttribute(c10::attr::Subgraph) ||
        node->hasAttribute(PreparedSubgraphAttribute())) {
      continue;
    }
    absl::StatusOr<PreparedGraph> prepared = PrepareGraph(node->g(c10::attr::Subgraph), options);
    if (!prepared.ok()) continue;
    PrepareForkedSubgraphs(*prepared->graph, options);
    node->g_(c10::attr::Subgraph, prepared->graph);
    node->i_(PreparedSubgraphAttribute(), 1);
  }
}

}  // namespace

c10::Symbol PreparedSubgraphAttribute() {
  static const c10::Symbol kAttribute = c10::Symbol::attr("static_runtime_prepared");
  return kAttribute;
}

void PrepareForkedSubgraphs(torch::jit::Graph& graph, const Options& options) {
  PrepareForkedSubgraphsIn(graph.block(), options);
}

absl::StatusOr<PreparedGraph> AsPrepared(std::shared_ptr<torch::jit::Graph> graph) {
  RETURN_IF_ERROR(CheckStaticRunnable(graph));
  c10::FunctionSchema schema = SchemaFromGraph(*graph);
  return PreparedGraph{std::move(graph), std::move(schema), /*self=*/c10::IValue()};
}

}  // namespace static_runtime
