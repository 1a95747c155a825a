#include "passes/owned_refs.h"

#include "ir/operators/operators.h"

namespace static_runtime {

bool CreateOwnedRefs(const std::shared_ptr<torch::jit::Graph>& graph) {
  ops::EnsureOperatorsRegistered();
  bool changed = false;
  for (size_t i = 0; i < graph->outputs().size(); ++i) {
    torch::jit::Value* output = graph->outputs()[i];
    const bool is_input = output->node()->kind() == c10::prim::Param;
    const bool is_constant = output->node()->kind() == c10::prim::Constant;
    if (!is_input && !is_constant) continue;
    torch::jit::Node* owned = graph->create(ops::kOwnedRef, {output}, 1);
    graph->appendNode(owned);
    owned->output()->setType(output->type());
    graph->return_node()->replaceInput(i, owned->output());
    changed = true;
  }
  return changed;
}

}  // namespace static_runtime
