#include "passes/copy_variants.h"

#include <utility>
#include <vector>

#include "ir/graph_util.h"
#include "ir/operators/operators.h"
#include "torch/csrc/jit/ir/alias_analysis.h"

namespace static_runtime {
namespace {

const ops::CopyVariant* FindCopyVariant(const torch::jit::Node* node) {
  for (const ops::CopyVariant& variant : ops::CopyVariants()) {
    if (IsOverload(node, variant.view_op, variant.view_overload)) return &variant;
  }
  return nullptr;
}

// Whether the graph reads strides (aten::stride, aten::is_contiguous), or
// writes, in place, to the input or the result of an op that returns a view
// or a copy depending on its input's strides. Then which one it returns is
// observable, and copy variants, which change the strides of everything
// computed from them, could change it (found by //fuzz:random_graph_test).
bool StrideDependentAliasingIsObserved(const std::shared_ptr<torch::jit::Graph>& graph,
                                       const torch::jit::AliasDb& alias_db) {
  for (torch::jit::Node* node : AllNodes(graph->block())) {
    // Strides read by the model: a copy's differ from a view's.
    static const c10::Symbol kIsContiguous = c10::Symbol::fromQualString("aten::is_contiguous");
    if (node->kind() == c10::aten::stride || node->kind() == kIsContiguous) return true;
    if (!ReturnsViewOrCopyByStrides(node->kind())) continue;
    if (alias_db.hasWriters(node->input(0)) || alias_db.hasWriters(node->output())) return true;
  }
  return false;
}

}  // namespace

bool UseCopyVariants(const std::shared_ptr<torch::jit::Graph>& graph) {
  ops::EnsureOperatorsRegistered();
  torch::jit::AliasDb alias_db(graph);
  if (StrideDependentAliasingIsObserved(graph, alias_db)) return false;
  std::vector<std::pair<torch::jit::Node*, const ops::CopyVariant*>> rewrites;
  for (torch::jit::Node* node : AllNodes(graph->block())) {
    const ops::CopyVariant* variant = FindCopyVariant(node);
    if (variant == nullptr) continue;
    torch::jit::Value* view = node->output();
    if (alias_db.hasWriters(node->input(0)) || alias_db.hasWriters(view) ||
        alias_db.mayContainAlias(view, graph->outputs())) {
      continue;
    }
    rewrites.emplace_back(node, variant);
  }
  for (const auto& [node, variant] : rewrites) {
    ReplaceNode(node, c10::Symbol::fromQualString(variant->copy_op), node->inputs());
  }
  return !rewrites.empty();
}

}  // namespace static_runtime
