#include "passes/fuse_list_unpack.h"

#include <algorithm>
#include <vector>

#include "ir/graph_util.h"
#include "ir/operators/operators.h"
#include "torch/csrc/jit/ir/alias_analysis.h"

namespace static_runtime {
namespace {

// The multi-output replacement for `node`, or an empty symbol.
c10::Symbol UnpackedVariant(const torch::jit::Node* node) {
  for (const ops::UnpackedSplit& split : ops::UnpackedSplits()) {
    if (IsOverload(node, split.list_op, split.list_overload)) {
      return c10::Symbol::fromQualString(split.op);
    }
  }
  return c10::Symbol();
}

}  // namespace

bool FuseListUnpack(const std::shared_ptr<torch::jit::Graph>& graph) {
  ops::EnsureOperatorsRegistered();
  // Collected first: fusing destroys ListUnpack nodes that come later.
  std::vector<torch::jit::Node*> candidates;
  const std::vector<torch::jit::Node*> nodes = AllNodes(graph->block());
  // Strides read by the model: the fused node's copies are contiguous where
  // the views were not (found by //fuzz:random_graph_test).
  if (std::any_of(nodes.begin(), nodes.end(), ReadsStrides)) return false;
  {
    torch::jit::AliasDb alias_db(graph);
    for (torch::jit::Node* node : nodes) {
      if (UnpackedVariant(node) == c10::Symbol() || alias_db.hasWriters(node->input(0)) ||
          node->output()->uses().size() != 1) {
        continue;
      }
      const torch::jit::Node* unpack = node->output()->uses()[0].user;
      bool parts_written = false;
      for (const torch::jit::Value* part : unpack->outputs()) {
        parts_written = parts_written || alias_db.hasWriters(part);
      }
      if (!parts_written) candidates.push_back(node);
    }
  }
  bool changed = false;
  for (torch::jit::Node* node : candidates) {
    const c10::Symbol unpacked = UnpackedVariant(node);
    torch::jit::Value* list = node->output();
    if (list->uses().size() != 1) continue;
    torch::jit::Node* unpack = list->uses()[0].user;
    if (unpack->kind() != c10::prim::ListUnpack || unpack->owningBlock() != node->owningBlock()) {
      continue;
    }
    torch::jit::Node* fused = graph->create(unpacked, node->inputs(), unpack->outputs().size());
    fused->insertBefore(node);
    fused->copyMetadata(node);
    for (size_t i = 0; i < unpack->outputs().size(); ++i) {
      fused->output(i)->copyMetadata(unpack->output(i));
      unpack->output(i)->replaceAllUsesWith(fused->output(i));
    }
    unpack->destroy();
    node->destroy();
    changed = true;
  }
  return changed;
}

}  // namespace static_runtime
