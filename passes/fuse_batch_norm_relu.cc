#include "passes/fuse_batch_norm_relu.h"

#include <optional>
#include <utility>
#include <vector>

#include "ir/graph_util.h"
#include "ir/operators/operators.h"
#include "torch/csrc/jit/ir/constants.h"

namespace static_runtime {
namespace {

using torch::jit::Node;

// The relu that alone reads `batch_norm`'s result, in its block, if any.
Node* OnlyRelu(const Node* batch_norm) {
  const torch::jit::Value* result = batch_norm->output();
  if (result->uses().size() != 1) return nullptr;
  Node* user = result->uses()[0].user;
  if (!IsOverload(user, "aten::relu", "") || user->owningBlock() != batch_norm->owningBlock()) {
    return nullptr;
  }
  return user;
}

bool InInference(const Node* batch_norm) {
  const std::optional<c10::IValue> training = torch::jit::toIValue(batch_norm->input(5));
  return training && training->isBool() && !training->toBool();
}

}  // namespace

bool FuseBatchNormRelu(const std::shared_ptr<torch::jit::Graph>& graph) {
  std::vector<std::pair<Node*, Node*>> pairs;
  for (Node* node : AllNodes(graph->block())) {
    if (!IsOverload(node, "aten::batch_norm", "") || !InInference(node)) continue;
    if (Node* relu = OnlyRelu(node)) pairs.emplace_back(node, relu);
  }
  for (const auto& [batch_norm, relu] : pairs) {
    // The relu then reads the fused node's result; its readers read that.
    Node* fused = ReplaceNode(batch_norm, ops::kBatchNormRelu, batch_norm->inputs());
    relu->output()->replaceAllUsesWith(fused->output());
    relu->destroy();
  }
  return !pairs.empty();
}

}  // namespace static_runtime
