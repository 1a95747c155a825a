#include "passes/hoist_dict_lookups.h"

#include <vector>

#include "ir/operators/operators.h"
#include "torch/csrc/jit/ir/alias_analysis.h"
#include "torch/csrc/jit/ir/constants.h"

namespace static_runtime {
namespace {

using torch::jit::Node;
using torch::jit::Value;

// The top-level `__getitem__(dict, <constant>)` nodes on `dict`, in order.
std::vector<Node*> ConstantKeyLookups(torch::jit::Graph& graph, Value* dict) {
  std::vector<Node*> lookups;
  for (Node* node : graph.nodes()) {
    if (node->kind() == c10::aten::__getitem__ && node->inputs().size() == 2 &&
        node->input(0) == dict && torch::jit::toIValue(node->input(1))) {
      lookups.push_back(node);
    }
  }
  return lookups;
}

void Hoist(torch::jit::Graph& graph, Value* dict, const std::vector<Node*>& lookups) {
  torch::jit::WithInsertPoint guard(lookups.front());
  std::vector<Value*> inputs = {dict};
  for (Node* lookup : lookups) {
    inputs.push_back(graph.insertConstant(*torch::jit::toIValue(lookup->input(1))));
  }
  Node* unpack = graph.create(ops::kUnpackDict, inputs, lookups.size());
  unpack->insertBefore(lookups.front());
  unpack->copyMetadata(lookups.front());
  for (size_t i = 0; i < lookups.size(); ++i) {
    unpack->output(i)->copyMetadata(lookups[i]->output());
    lookups[i]->output()->replaceAllUsesWith(unpack->output(i));
    lookups[i]->destroy();
  }
}

}  // namespace

bool HoistDictLookups(const std::shared_ptr<torch::jit::Graph>& graph) {
  ops::EnsureOperatorsRegistered();
  std::vector<std::pair<Value*, std::vector<Node*>>> hoists;
  {
    torch::jit::AliasDb alias_db(graph);
    for (Value* input : graph->inputs()) {
      if (input->type()->kind() != c10::TypeKind::DictType || alias_db.hasWriters(input)) {
        continue;
      }
      std::vector<Node*> lookups = ConstantKeyLookups(*graph, input);
      if (!lookups.empty()) hoists.emplace_back(input, std::move(lookups));
    }
  }
  for (const auto& [dict, lookups] : hoists) Hoist(*graph, dict, lookups);
  return !hoists.empty();
}

}  // namespace static_runtime
