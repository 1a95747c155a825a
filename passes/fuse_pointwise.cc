#include "passes/fuse_pointwise.h"

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "passes/operators.h"
#include "torch/csrc/jit/ir/constants.h"

namespace static_runtime {
namespace {

using torch::jit::Node;
using torch::jit::Value;

constexpr size_t kMaxGroupNodes = 32;

bool IsConstantNumber(const Value* value) {
  const c10::optional<c10::IValue> constant = torch::jit::toIValue(value);
  return constant && (constant->isDouble() || constant->isInt());
}

bool IsConstantOne(const Value* value) {
  const c10::optional<c10::IValue> constant = torch::jit::toIValue(value);
  return constant && ((constant->isInt() && constant->toInt() == 1) ||
                      (constant->isDouble() && constant->toDouble() == 1.0));
}

const std::vector<const char*>& UnarySchemas() {
  static const std::vector<const char*> kSchemas = {
      "aten::neg(Tensor self) -> Tensor",   "aten::abs(Tensor self) -> Tensor",
      "aten::relu(Tensor self) -> Tensor",  "aten::sigmoid(Tensor self) -> Tensor",
      "aten::tanh(Tensor self) -> Tensor",  "aten::exp(Tensor self) -> Tensor",
      "aten::log(Tensor self) -> Tensor",   "aten::sqrt(Tensor self) -> Tensor",
      "aten::rsqrt(Tensor self) -> Tensor",
  };
  return kSchemas;
}

}  // namespace

std::string WhyNotFusible(const Node* node) {
  if (node->outputs().size() != 1 || node->output()->type()->kind() != c10::TypeKind::TensorType) {
    return "it does not return one tensor";
  }
  for (const char* schema :
       {"aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
        "aten::add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
        "aten::sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
        "aten::sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor"}) {
    if (node->matches(schema)) {
      return IsConstantOne(node->input(2)) ? "" : "its alpha is not the constant 1";
    }
  }
  for (const char* schema : {"aten::mul.Tensor(Tensor self, Tensor other) -> Tensor",
                             "aten::mul.Scalar(Tensor self, Scalar other) -> Tensor",
                             "aten::div.Tensor(Tensor self, Tensor other) -> Tensor",
                             "aten::div.Scalar(Tensor self, Scalar other) -> Tensor"}) {
    if (node->matches(schema)) return "";
  }
  for (const char* schema : UnarySchemas()) {
    if (node->matches(schema)) return "";
  }
  if (node->matches("aten::clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor")) {
    return IsConstantNumber(node->input(1)) && IsConstantNumber(node->input(2))
               ? ""
               : "its bounds are not two constant numbers";
  }
  return "not an elementwise op the fusion handles";
}

namespace {

// Replaces the run `nodes` (consecutive in one block) by one fused node.
// Its inputs are every value the run uses from outside (constants
// included); its outputs are the run's values used after it, then the
// others, so that the kernel can run the nodes one by one on the runtime's
// own slots when the fused form does not apply.
void FuseRun(const std::vector<Node*>& nodes) {
  torch::jit::Graph* graph = nodes.front()->owningGraph();
  auto subgraph = std::make_shared<torch::jit::Graph>();
  absl::flat_hash_set<const Node*> in_run(nodes.begin(), nodes.end());
  std::unordered_map<Value*, Value*> inner;  // outer value -> subgraph value
  std::vector<Value*> outer_inputs;
  auto map_input = [&](Value* outer) -> Value* {
    auto found = inner.find(outer);
    if (found != inner.end()) return found->second;
    Value* value = subgraph->addInput()->setType(outer->type());
    outer_inputs.push_back(outer);
    inner.emplace(outer, value);
    return value;
  };
  for (Node* node : nodes) {
    Node* clone = subgraph->createClone(node, map_input);
    subgraph->insertNode(clone);
    inner[node->output()] = clone->output();
  }
  std::vector<Value*> used_after;
  std::vector<Value*> internal;
  for (Node* node : nodes) {
    Value* output = node->output();
    bool used = false;
    for (const torch::jit::Use& use : output->uses()) used = used || !in_run.contains(use.user);
    (used ? used_after : internal).push_back(output);
  }
  std::vector<Value*> outer_outputs = used_after;
  outer_outputs.insert(outer_outputs.end(), internal.begin(), internal.end());
  for (Value* output : outer_outputs) subgraph->registerOutput(inner.at(output));
  Node* fused = graph->create(ops::kFusedPointwise, outer_inputs, outer_outputs.size());
  fused->g_(c10::attr::Subgraph, subgraph);
  fused->i_(ops::kUsedOutputs, static_cast<int64_t>(used_after.size()));
  // After the run: every user outside it comes later, every value the run
  // uses (constants between its nodes too) is defined by then.
  fused->insertAfter(nodes.back());
  for (size_t i = 0; i < outer_outputs.size(); ++i) {
    fused->output(i)->setType(outer_outputs[i]->type());
    outer_outputs[i]->replaceAllUsesWith(fused->output(i));
  }
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) (*it)->destroy();
}

bool FuseBlock(torch::jit::Block* block) {
  bool changed = false;
  std::vector<std::vector<Node*>> runs;
  std::vector<Node*> run;
  absl::flat_hash_set<const Value*> produced;
  auto close_run = [&] {
    if (run.size() >= 2) runs.push_back(run);
    run.clear();
    produced.clear();
  };
  for (Node* node : block->nodes()) {
    for (torch::jit::Block* sub_block : node->blocks()) changed |= FuseBlock(sub_block);
    if (node->kind() == c10::prim::Constant) continue;  // constants do not break a run
    if (!WhyNotFusible(node).empty()) {
      close_run();
      continue;
    }
    bool uses_run = false;
    for (const Value* input : node->inputs()) uses_run = uses_run || produced.contains(input);
    if (!uses_run || run.size() == kMaxGroupNodes) close_run();
    run.push_back(node);
    produced.insert(node->output());
  }
  close_run();
  for (const std::vector<Node*>& nodes : runs) FuseRun(nodes);
  return changed || !runs.empty();
}

}  // namespace

bool FusePointwise(const std::shared_ptr<torch::jit::Graph>& graph) {
  ops::EnsureOperatorsRegistered();
  return FuseBlock(graph->block());
}

}  // namespace static_runtime
