#include "passes/variadic_ops.h"

#include <vector>

#include "ir/graph_util.h"
#include "ir/operators/operators.h"

namespace static_runtime {

bool UseVariadicOps(const std::shared_ptr<torch::jit::Graph>& graph) {
  ops::EnsureOperatorsRegistered();
  bool changed = false;
  for (torch::jit::Node* node : AllNodes(graph->block())) {
    c10::Symbol variadic;
    if (IsOverload(node, "aten::cat", "")) {
      variadic = ops::kVariadicCat;
    } else if (IsOverload(node, "aten::stack", "")) {
      variadic = ops::kVariadicStack;
    } else {
      continue;
    }
    torch::jit::Value* list = node->input(0);
    if (list->node()->kind() != c10::prim::ListConstruct || list->uses().size() != 1) {
      continue;
    }
    std::vector<torch::jit::Value*> inputs(list->node()->inputs().begin(),
                                           list->node()->inputs().end());
    inputs.push_back(node->input(1));
    torch::jit::Node* list_node = list->node();
    ReplaceNode(node, variadic, inputs);
    list_node->destroy();
    changed = true;
  }
  return changed;
}

}  // namespace static_runtime
