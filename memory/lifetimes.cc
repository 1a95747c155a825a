#include "memory/lifetimes.h"

#include "absl/container/flat_hash_map.h"
#include "torch/csrc/jit/ir/alias_analysis.h"

namespace static_runtime {
namespace memory {
namespace {

using torch::jit::Node;
using torch::jit::Value;

// The top-level node containing `node` (itself if top-level).
const Node* TopLevel(const Node* node, const torch::jit::Block* top) {
  while (node->owningBlock() != top) node = node->owningBlock()->owningNode();
  return node;
}

}  // namespace

LifetimeAnalysis AnalyzeLifetimes(const std::shared_ptr<torch::jit::Graph>& graph,
                                  const std::function<bool(const Node*)>& is_candidate) {
  torch::jit::AliasDb alias_db(graph);
  const torch::jit::Block* top = graph->block();
  absl::flat_hash_map<const Node*, size_t> index;
  for (const Node* node : top->nodes()) index.emplace(node, index.size());
  index.emplace(top->return_node(), index.size());

  LifetimeAnalysis analysis;
  for (Node* node : graph->nodes()) {
    if (!is_candidate(node)) continue;
    for (Value* value : node->outputs()) {
      if (value->type()->kind() != c10::TypeKind::TensorType) continue;
      bool manageable = !alias_db.mayContainAlias(node->inputs(), value);
      size_t last = index.at(node);
      for (const torch::jit::Use& use : value->uses()) {
        Node* user = use.user;
        if (!manageable) break;
        if (user->kind() == c10::prim::Return) {  // a graph output, or yielded
          manageable = false;
          break;
        }
        manageable = !alias_db.mayContainAlias(value, user->outputs()) &&
                     !alias_db.writesToAlias(user, {value});
        last = std::max(last, index.at(TopLevel(user, top)));
      }
      if (manageable) {
        analysis.managed.push_back({value, index.at(node), last});
      } else {
        analysis.rejected.push_back(value);
      }
    }
  }
  return analysis;
}

}  // namespace memory
}  // namespace static_runtime
