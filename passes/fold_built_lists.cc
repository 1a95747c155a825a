#include "passes/fold_built_lists.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/graph_util.h"
#include "torch/csrc/jit/ir/constants.h"

namespace static_runtime {
namespace {

using torch::jit::Block;
using torch::jit::Node;
using torch::jit::Value;

// A use of `list` that reads its contents or appends to it, at the top of
// its block, and uses it only once.
bool IsFoldableUse(Node* user, Value* list) {
  int uses = 0;
  for (Value* input : user->inputs()) uses += input == list;
  if (uses != 1 || user->input(0) != list) return false;
  if (IsOverload(user, "aten::append", "t")) return !user->output()->hasUses();
  if (IsOverload(user, "aten::len", "t")) return true;
  return IsOverload(user, "aten::__getitem__", "t");
}

// Folds the reads of `construct`'s list up to its first other use.
bool FoldReadsOf(Node* construct) {
  Value* list = construct->output();
  Block* block = construct->owningBlock();
  // Every node of the block that uses the list, and whether that use folds.
  absl::flat_hash_map<Node*, bool> users;
  for (const torch::jit::Use& use : list->uses()) {
    Node* user = AncestorIn(use.user, block);
    auto [it, inserted] = users.emplace(user, user == use.user && IsFoldableUse(user, list));
    if (!inserted) it->second = false;
  }
  std::vector<Value*> elements(construct->inputs().begin(), construct->inputs().end());
  bool changed = false;
  torch::jit::Graph* graph = construct->owningGraph();
  size_t users_left = users.size();
  for (Node* node = construct->next(); users_left > 0 && node != block->return_node();
       node = node->next()) {
    auto user = users.find(node);
    if (user == users.end()) continue;
    --users_left;
    if (!user->second) break;
    if (node->kind() == c10::aten::append) {
      elements.push_back(node->input(1));
    } else if (node->kind() == c10::aten::len) {
      torch::jit::WithInsertPoint before(node);
      node->output()->replaceAllUsesWith(
          graph->insertConstant(static_cast<int64_t>(elements.size())));
      changed = true;
    } else {
      c10::optional<c10::IValue> constant_index = torch::jit::toIValue(node->input(1));
      if (!constant_index) continue;
      int64_t index = constant_index->toInt();
      if (index < 0) index += static_cast<int64_t>(elements.size());
      if (index < 0 || index >= static_cast<int64_t>(elements.size())) continue;
      Value* element = elements[static_cast<size_t>(index)];
      if (!element->type()->isSubtypeOf(*node->output()->type())) continue;
      node->output()->replaceAllUsesWith(element);
      changed = true;
    }
  }
  return changed;
}

}  // namespace

bool FoldBuiltLists(const std::shared_ptr<torch::jit::Graph>& graph) {
  bool changed = false;
  for (Node* node : AllNodes(graph->block())) {
    if (node->kind() == c10::prim::ListConstruct) changed |= FoldReadsOf(node);
  }
  return changed;
}

}  // namespace static_runtime
