#include "passes/eliminate_noop_slice.h"

#include <limits>

#include "ir/graph_util.h"
#include "torch/csrc/jit/ir/alias_analysis.h"
#include "torch/csrc/jit/ir/constants.h"

namespace static_runtime {
namespace {

using torch::jit::Value;

bool IsConstantEqual(Value* value, int64_t expected) {
  c10::optional<c10::IValue> constant = torch::jit::toIValue(value);
  return constant && constant->isInt() && constant->toInt() == expected;
}

bool IsConstantNone(Value* value) {
  c10::optional<c10::IValue> constant = torch::jit::toIValue(value);
  return constant && constant->isNone();
}

// start in {None, 0}, end in {None, INT64_MAX}, step == 1.
bool SelectsEverything(Value* start, Value* end, Value* step) {
  return (IsConstantNone(start) || IsConstantEqual(start, 0)) &&
         (IsConstantNone(end) || IsConstantEqual(end, std::numeric_limits<int64_t>::max())) &&
         IsConstantEqual(step, 1);
}

}  // namespace

bool EliminateNoOpSlice(const std::shared_ptr<torch::jit::Graph>& graph) {
  torch::jit::AliasDb alias_db(graph);
  std::vector<torch::jit::Node*> no_ops;
  for (torch::jit::Node* node : AllNodes(graph->block())) {
    const bool tensor_slice = IsOverload(node, "aten::slice", "Tensor") &&
                              SelectsEverything(node->input(2), node->input(3), node->input(4));
    const bool list_slice = IsOverload(node, "aten::slice", "t") &&
                            SelectsEverything(node->input(1), node->input(2), node->input(3)) &&
                            !alias_db.hasWriters(node->input(0)) &&
                            !alias_db.hasWriters(node->output());
    if (tensor_slice || list_slice) no_ops.push_back(node);
  }
  for (torch::jit::Node* node : no_ops) {
    node->output()->replaceAllUsesWith(node->input(0));
    node->destroy();
  }
  return !no_ops.empty();
}

}  // namespace static_runtime
