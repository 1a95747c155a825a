#include "passes/fold_none_checks.h"

#include <algorithm>
#include <vector>

#include "ir/graph_util.h"
#include "torch/csrc/jit/passes/constant_propagation.h"

namespace static_runtime {
namespace {

using torch::jit::Node;
using torch::jit::Value;

// `a is b` decided before running: false when one must be None and the other
// can never be, true when both are the same value (`self.attn(x, x, x)`
// inlined: `query is key`).
c10::optional<bool> KnownIdentity(const Value* a, const Value* b) {
  if (a == b) return true;
  if ((a->mustBeNone() && b->mustNotBeNone()) || (a->mustNotBeNone() && b->mustBeNone())) {
    return false;
  }
  return c10::nullopt;
}

// Whether `node`'s result `j` is its result `i` in every branch.
bool SameInEveryBranch(const Node* node, size_t i, size_t j) {
  return std::all_of(
      node->blocks().begin(), node->blocks().end(),
      [&](const torch::jit::Block* block) { return block->outputs()[i] == block->outputs()[j]; });
}

// Merges the results of one If that are one value in every branch (`query =
// key = value = query.unsqueeze(1)` in one branch, all three the input in
// the other), so identity checks between them are decided.
bool MergeIdenticalResults(Node* node) {
  bool changed = false;
  for (size_t j = node->outputs().size(); j-- > 1;) {
    for (size_t i = 0; i < j; ++i) {
      if (!SameInEveryBranch(node, i, j) ||
          !node->output(i)->type()->isSubtypeOf(*node->output(j)->type())) {
        continue;
      }
      node->output(j)->replaceAllUsesWith(node->output(i));
      for (torch::jit::Block* block : node->blocks()) block->eraseOutput(j);
      node->eraseOutput(j);
      changed = true;
      break;
    }
  }
  return changed;
}

// Gives an If's optional result the type its branches all yield when none
// of them can be None (`mask = mask if mask is not None else padding`, with
// a tensor `padding`), so checks of it fold.
bool NarrowOptionalResults(Node* node) {
  bool changed = false;
  for (size_t i = 0; i < node->outputs().size(); ++i) {
    const c10::OptionalTypePtr optional = node->output(i)->type()->cast<c10::OptionalType>();
    if (optional == nullptr) continue;
    const c10::TypePtr element = optional->getElementType();
    const bool never_none = std::all_of(
        node->blocks().begin(), node->blocks().end(), [&](const torch::jit::Block* block) {
          const Value* yielded = block->outputs()[i];
          return yielded->mustNotBeNone() && yielded->type()->isSubtypeOf(*element);
        });
    if (!never_none) continue;
    node->output(i)->setType(element);
    changed = true;
  }
  return changed;
}

// MergeIdenticalResults and NarrowOptionalResults on every If, inner ones
// first, until nothing changes (a result narrowed or merged may settle an
// If that yields it).
bool RefineIfResults(const std::shared_ptr<torch::jit::Graph>& graph) {
  bool changed = false;
  for (bool again = true; again;) {
    again = false;
    std::vector<Node*> nodes = AllNodes(graph->block());
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
      if ((*it)->kind() != c10::prim::If) continue;
      again |= MergeIdenticalResults(*it);
      again |= NarrowOptionalResults(*it);
    }
    changed |= again;
  }
  return changed;
}

// One round: refines the Ifs' results, folds the checks it can and decides
// the branches they settle. Returns whether anything changed.
bool FoldOnce(const std::shared_ptr<torch::jit::Graph>& graph) {
  const bool refined = RefineIfResults(graph);
  std::vector<Node*> folded;
  for (Node* node : AllNodes(graph->block())) {
    const bool is = node->kind() == c10::aten::__is__;
    const bool is_not = node->kind() == c10::aten::__isnot__;
    c10::optional<bool> identical;
    if ((is || is_not) && node->inputs().size() == 2 &&
        (identical = KnownIdentity(node->input(0), node->input(1)))) {
      torch::jit::WithInsertPoint insert_point(node);
      node->output()->replaceAllUsesWith(graph->insertConstant(*identical == is));
      folded.push_back(node);
    } else if (node->kind() == c10::prim::unchecked_cast &&
               node->input()->type()->isSubtypeOf(*node->output()->type())) {
      node->output()->replaceAllUsesWith(node->input());
      folded.push_back(node);
    }
  }
  for (Node* node : folded) node->destroy();
  if (folded.empty()) return refined;
  std::shared_ptr<torch::jit::Graph> decided = graph;  // ConstantPropagation takes a mutable one
  torch::jit::ConstantPropagation(decided);            // the branches decided
  return true;
}

}  // namespace

bool FoldNoneChecks(const std::shared_ptr<torch::jit::Graph>& graph) {
  // A decided branch leaves its values in the enclosing block with their own
  // types (`mask.view(...)` is a Tensor where the If yielded a Tensor?):
  // again until nothing changes.
  bool changed = false;
  while (FoldOnce(graph)) changed = true;
  return changed;
}

}  // namespace static_runtime
