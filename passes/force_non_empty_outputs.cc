#include "passes/force_non_empty_outputs.h"

#include "ir/graph_util.h"

namespace static_runtime {

bool ForceNonEmptyOutputs(const std::shared_ptr<torch::jit::Graph>& graph) {
  bool changed = false;
  for (torch::jit::Node* node : AllNodes(graph->block())) {
    if (node->blocks().empty()) continue;
    bool all_empty = true;
    for (torch::jit::Block* block : node->blocks()) {
      all_empty = all_empty && block->outputs().empty();
    }
    // A Loop body always returns its condition; only If blocks can be empty,
    // and then all of them are.
    if (!all_empty) continue;
    for (torch::jit::Block* block : node->blocks()) {
      torch::jit::WithInsertPoint guard(block->return_node());
      block->registerOutput(graph->insertConstant(c10::IValue()));
    }
    node->addOutput()->setType(c10::NoneType::get());
    changed = true;
  }
  return changed;
}

}  // namespace static_runtime
