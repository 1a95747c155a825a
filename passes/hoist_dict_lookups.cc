#include "passes/hoist_dict_lookups.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
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

// A string or int key as text ("" for other keys, which are not merged).
std::string KeyText(const c10::IValue& key) {
  if (key.isString()) return absl::StrCat("s", key.toStringRef());
  if (key.isInt()) return absl::StrCat("i", key.toInt());
  return "";
}

// One unpack_dict for `lookups`, each string or int key looked up once (the
// first missing key still raises first).
void Hoist(torch::jit::Graph& graph, Value* dict, const std::vector<Node*>& lookups) {
  torch::jit::WithInsertPoint guard(lookups.front());
  std::vector<Value*> inputs = {dict};
  std::vector<size_t> output_of(lookups.size());
  absl::flat_hash_map<std::string, size_t> output_of_key;
  for (size_t i = 0; i < lookups.size(); ++i) {
    const c10::IValue key = *torch::jit::toIValue(lookups[i]->input(1));
    const std::string text = KeyText(key);
    auto seen = text.empty() ? output_of_key.end() : output_of_key.find(text);
    if (seen != output_of_key.end()) {
      output_of[i] = seen->second;
      continue;
    }
    output_of[i] = inputs.size() - 1;
    if (!text.empty()) output_of_key.emplace(text, output_of[i]);
    inputs.push_back(graph.insertConstant(key));
  }
  Node* unpack = graph.create(ops::kUnpackDict, inputs, inputs.size() - 1);
  unpack->insertBefore(lookups.front());
  unpack->copyMetadata(lookups.front());
  for (size_t i = 0; i < lookups.size(); ++i) {
    Value* output = unpack->output(output_of[i]);
    if (!output->hasUses()) output->copyMetadata(lookups[i]->output());
    lookups[i]->output()->replaceAllUsesWith(output);
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
