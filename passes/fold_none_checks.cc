#include "passes/fold_none_checks.h"

#include <vector>

#include "ir/graph_util.h"
#include "torch/csrc/jit/passes/constant_propagation.h"

namespace static_runtime {
namespace {

using torch::jit::Node;
using torch::jit::Value;

// Whether `a is b` is known to be false before running: one must be None and
// the other can never be.
bool KnownDifferent(const Value* a, const Value* b) {
  return (a->mustBeNone() && b->mustNotBeNone()) || (a->mustNotBeNone() && b->mustBeNone());
}

}  // namespace

bool FoldNoneChecks(const std::shared_ptr<torch::jit::Graph>& graph) {
  std::vector<Node*> folded;
  for (Node* node : AllNodes(graph->block())) {
    const bool is = node->kind() == c10::aten::__is__;
    const bool is_not = node->kind() == c10::aten::__isnot__;
    if ((is || is_not) && node->inputs().size() == 2 &&
        KnownDifferent(node->input(0), node->input(1))) {
      torch::jit::WithInsertPoint insert_point(node);
      node->output()->replaceAllUsesWith(graph->insertConstant(is_not));
      folded.push_back(node);
    } else if (node->kind() == c10::prim::unchecked_cast &&
               node->input()->type()->isSubtypeOf(*node->output()->type())) {
      node->output()->replaceAllUsesWith(node->input());
      folded.push_back(node);
    }
  }
  for (Node* node : folded) node->destroy();
  if (folded.empty()) return false;
  std::shared_ptr<torch::jit::Graph> decided = graph;  // ConstantPropagation takes a mutable one
  torch::jit::ConstantPropagation(decided);            // the branches decided
  return true;
}

}  // namespace static_runtime
