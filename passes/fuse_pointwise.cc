#include "passes/fuse_pointwise.h"

#include <algorithm>
#include <functional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_join.h"
#include "ir/operators/operators.h"
#include "ir/operators/pointwise_match.h"
#include "torch/csrc/jit/ir/alias_analysis.h"
#include "torch/csrc/jit/ir/constants.h"

namespace static_runtime {
namespace {

using torch::jit::Node;
using torch::jit::Value;

constexpr size_t kMaxGroupNodes = 32;

c10::optional<c10::IValue> ConstantInGraph(const Value* value) {
  return torch::jit::toIValue(value);
}

// The alias rule (passes/fuse_pointwise.h): why alias analysis keeps the
// fusible `node` out of groups ("" when it does not).
std::string WhyAliasingBlocks(const Node* node, PointwiseOp op,
                              const torch::jit::AliasDb& alias_db) {
  if (!IsConversion(op)) return "";
  return alias_db.hasWriters(node->input(0)) || alias_db.hasWriters(node->output())
             ? "a conversion that may return its input, which is written in place (alias "
               "analysis)"
             : "";
}

}  // namespace

std::string WhyNotFusible(const Node* node, const torch::jit::AliasDb& alias_db) {
  std::string why;
  const c10::optional<PointwiseOp> op = MatchPointwiseOp(node, ConstantInGraph, &why);
  return op ? WhyAliasingBlocks(node, *op, alias_db) : why;
}

std::string GroupOps(const Node* fused) {
  std::vector<std::string> kinds;
  for (const Node* node : fused->g(c10::attr::Subgraph)->nodes()) {
    kinds.push_back(node->kind().toUnqualString());
  }
  return absl::StrJoin(kinds, ", ");
}

namespace {

// Replaces the group `nodes` (in order, in one window) by one fused node.
// Its inputs are every value the group uses from outside (constants
// included); its outputs are the group's values used after it, then the
// others, so that the kernel can run the nodes one by one on the runtime's
// own slots when the fused form does not apply.
void FuseGroup(const std::vector<Node*>& nodes) {
  torch::jit::Graph* graph = nodes.front()->owningGraph();
  auto subgraph = std::make_shared<torch::jit::Graph>();
  absl::flat_hash_set<const Node*> in_group(nodes.begin(), nodes.end());
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
    for (const torch::jit::Use& use : output->uses()) used = used || !in_group.contains(use.user);
    (used ? used_after : internal).push_back(output);
  }
  std::vector<Value*> outer_outputs = used_after;
  outer_outputs.insert(outer_outputs.end(), internal.begin(), internal.end());
  for (Value* output : outer_outputs) subgraph->registerOutput(inner.at(output));
  Node* fused = graph->create(ops::kFusedPointwise, outer_inputs, outer_outputs.size());
  fused->g_(c10::attr::Subgraph, subgraph);
  fused->i_(ops::kUsedOutputs, static_cast<int64_t>(used_after.size()));
  // After the group's last node: every user outside the group comes later
  // (a window node using a group value is in the group), every value the
  // group uses (constants between its nodes too) is defined by then. Other
  // window nodes it moves past are functional and independent of it.
  fused->insertAfter(nodes.back());
  for (size_t i = 0; i < outer_outputs.size(); ++i) {
    fused->output(i)->setType(outer_outputs[i]->type());
    outer_outputs[i]->replaceAllUsesWith(fused->output(i));
  }
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) (*it)->destroy();
}

// The groups of a window of consecutive fusible nodes: its connected parts
// (a node joins the part of every window value it uses), in order, cut into
// pieces of at most kMaxGroupNodes; those of two nodes or more.
std::vector<std::vector<Node*>> GroupsOf(const std::vector<Node*>& window) {
  absl::flat_hash_map<const Node*, size_t> index;
  std::vector<size_t> parent(window.size());
  std::function<size_t(size_t)> root = [&](size_t i) {
    return parent[i] == i ? i : parent[i] = root(parent[i]);
  };
  for (size_t i = 0; i < window.size(); ++i) {
    parent[i] = i;
    index.emplace(window[i], i);
    for (const Value* input : window[i]->inputs()) {
      auto producer = index.find(input->node());
      if (producer != index.end()) parent[root(producer->second)] = root(i);
    }
  }
  absl::flat_hash_map<size_t, std::vector<Node*>> parts;
  std::vector<size_t> order;  // roots by first node
  for (size_t i = 0; i < window.size(); ++i) {
    std::vector<Node*>& part = parts[root(i)];
    if (part.empty()) order.push_back(root(i));
    part.push_back(window[i]);
  }
  std::vector<std::vector<Node*>> groups;
  for (size_t part_root : order) {
    const std::vector<Node*>& part = parts.at(part_root);
    for (size_t begin = 0; begin + 1 < part.size(); begin += kMaxGroupNodes) {
      const size_t end = std::min(part.size(), begin + kMaxGroupNodes);
      if (end - begin >= 2) groups.emplace_back(part.begin() + begin, part.begin() + end);
    }
  }
  return groups;
}

// Appends the groups of `block` and of its sub-blocks to `groups`.
void CollectGroups(torch::jit::Block* block, const torch::jit::AliasDb& alias_db,
                   std::vector<std::vector<Node*>>* groups) {
  std::vector<Node*> window;
  auto close_window = [&] {
    for (std::vector<Node*>& group : GroupsOf(window)) groups->push_back(std::move(group));
    window.clear();
  };
  for (Node* node : block->nodes()) {
    for (torch::jit::Block* sub_block : node->blocks()) CollectGroups(sub_block, alias_db, groups);
    if (node->kind() == c10::prim::Constant) continue;  // constants do not end a window
    // A conversion joins only the window of the value it converts (so that
    // the two share a group).
    const c10::optional<PointwiseOp> op = PointwiseOpOf(node, ConstantInGraph);
    const bool fusible = op && WhyAliasingBlocks(node, *op, alias_db).empty() &&
                         (!IsConversion(*op) || std::find(window.begin(), window.end(),
                                                          node->input(0)->node()) != window.end());
    if (fusible) {
      window.push_back(node);
    } else {
      close_window();
    }
  }
  close_window();
}

}  // namespace

bool FusePointwise(const std::shared_ptr<torch::jit::Graph>& graph) {
  ops::EnsureOperatorsRegistered();
  std::vector<std::vector<Node*>> groups;
  {
    const torch::jit::AliasDb alias_db(graph);  // of the graph before any group is fused
    CollectGroups(graph->block(), alias_db, &groups);
  }
  for (const std::vector<Node*>& nodes : groups) FuseGroup(nodes);
  return !groups.empty();
}

}  // namespace static_runtime
