#include "passes/drop_eval_dropout.h"

#include <optional>
#include <vector>

#include "ir/graph_util.h"
#include "torch/csrc/jit/ir/constants.h"

namespace static_runtime {

bool DropEvalDropout(const std::shared_ptr<torch::jit::Graph>& graph) {
  std::vector<torch::jit::Node*> dropped;
  for (torch::jit::Node* node : AllNodes(graph->block())) {
    const bool dropout = node->kind() == c10::aten::dropout ||
                         node->kind() == c10::aten::feature_dropout ||
                         node->kind() == c10::aten::alpha_dropout ||
                         node->kind() == c10::aten::feature_alpha_dropout;
    if (!dropout || node->inputs().size() != 3) continue;
    // ATen returns the input itself when p is 0 or train is false, once it
    // has checked that p is a probability.
    const std::optional<c10::IValue> p = torch::jit::toIValue(node->input(1));
    const std::optional<c10::IValue> train = torch::jit::toIValue(node->input(2));
    if (!p || !p->isDouble() || !(p->toDouble() >= 0.0 && p->toDouble() <= 1.0)) continue;
    if (p->toDouble() != 0.0 && !(train && train->isBool() && !train->toBool())) continue;
    node->output()->replaceAllUsesWith(node->input(0));
    dropped.push_back(node);
  }
  for (torch::jit::Node* node : dropped) node->destroy();
  return !dropped.empty();
}

}  // namespace static_runtime
