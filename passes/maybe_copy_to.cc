#include "passes/maybe_copy_to.h"

#include "ir/graph_util.h"
#include "ir/operators/operators.h"

namespace static_runtime {

bool UseMaybeCopyTo(const std::shared_ptr<torch::jit::Graph>& graph) {
  ops::EnsureOperatorsRegistered();
  bool changed = false;
  for (torch::jit::Node* node : AllNodes(graph->block())) {
    if (!IsOverload(node, "aten::to", "dtype") && !IsOverload(node, "aten::to", "other") &&
        !IsOverload(node, "aten::to", "prim_dtype")) {
      continue;
    }
    ReplaceNode(node, ops::kMaybeCopyTo, node->inputs());
    changed = true;
  }
  return changed;
}

}  // namespace static_runtime
