#include "passes/sink_into_branches.h"

#include "ir/graph_util.h"
#include "torch/csrc/jit/ir/alias_analysis.h"

namespace static_runtime {
namespace {

using torch::jit::Block;
using torch::jit::Node;
using torch::jit::Value;

// Whether a value of `type` holds no tensor: MayHoldTensor's answer, except
// that a list is judged by its elements.
bool HoldsNoTensor(const c10::TypePtr& type) {
  if (type->kind() == c10::TypeKind::ListType) {
    return HoldsNoTensor(type->expectRef<c10::ListType>().getElementType());
  }
  return !MayHoldTensor(type);
}

// Whether moving `node` later in the program cannot change what it computes
// nor what else happens.
bool Movable(Node* node, torch::jit::AliasDb& alias_db) {
  if (!node->blocks().empty() || node->outputs().empty() || node->hasSideEffects() ||
      node->isNondeterministic()) {
    return false;
  }
  const c10::FunctionSchema* schema = node->maybeSchema();
  if (schema != nullptr
          ? schema->is_mutable()
          : node->kind() != c10::prim::ListConstruct && node->kind() != c10::prim::TupleConstruct) {
    return false;
  }
  for (const Value* output : node->outputs()) {
    if (!HoldsNoTensor(output->type())) return false;
  }
  for (const Value* input : node->inputs()) {
    if (alias_db.hasWriters(input)) return false;
  }
  return true;
}

// The branch of a later prim::If of `node`'s block that holds every use of
// `node`'s results, or nullptr.
Block* OnlyBranchUsing(Node* node) {
  Block* branch = nullptr;
  for (const Value* output : node->outputs()) {
    for (const torch::jit::Use& use : output->uses()) {
      Node* user = use.user;
      Node* holder = AncestorIn(user, node->owningBlock());
      if (holder == user || holder->kind() != c10::prim::If) return nullptr;
      while (user->owningBlock()->owningNode() != holder) user = user->owningBlock()->owningNode();
      if (branch != nullptr && branch != user->owningBlock()) return nullptr;
      branch = user->owningBlock();
    }
  }
  return branch;
}

bool SinkIn(Block* block, torch::jit::AliasDb& alias_db) {
  bool changed = false;
  // Last to first: a message's format moves before the sizes it prints are
  // looked at, so they follow it into the branch.
  for (Node* node = block->return_node()->prev(); node != block->param_node();) {
    Node* previous = node->prev();
    if (Movable(node, alias_db)) {
      if (Block* branch = OnlyBranchUsing(node)) {
        node->moveBefore(*branch->nodes().begin());  // the return node if empty
        changed = true;
      }
    }
    node = previous;
  }
  for (Node* node : block->nodes()) {
    for (Block* sub_block : node->blocks()) changed |= SinkIn(sub_block, alias_db);
  }
  return changed;
}

}  // namespace

bool SinkIntoBranches(const std::shared_ptr<torch::jit::Graph>& graph) {
  torch::jit::AliasDb alias_db(graph);
  return SinkIn(graph->block(), alias_db);
}

}  // namespace static_runtime
