#include "passes/fold_conv_batch_norm.h"

#include <vector>

#include "ir/graph_util.h"
#include "torch/csrc/jit/passes/frozen_conv_folding.h"

namespace static_runtime {
namespace {

bool IsConvolution(const torch::jit::Node* node) {
  const c10::Symbol kind = node->kind();
  return kind == c10::aten::conv1d || kind == c10::aten::conv2d || kind == c10::aten::conv3d;
}

// The aten::dim uses of the convolution's result when its other use is one
// batch norm's input; empty otherwise.
std::vector<torch::jit::Node*> RankChecksBesideBatchNorm(const torch::jit::Node* convolution) {
  std::vector<torch::jit::Node*> checks;
  int batch_norms = 0;
  for (const torch::jit::Use& use : convolution->output()->uses()) {
    if (use.user->kind() == c10::aten::batch_norm && use.offset == 0) {
      ++batch_norms;
    } else if (use.user->kind() == c10::aten::dim) {
      checks.push_back(use.user);
    } else {
      return {};
    }
  }
  if (batch_norms != 1) return {};
  return checks;
}

}  // namespace

bool FoldConvBatchNormPastRankChecks(const std::shared_ptr<torch::jit::Graph>& graph) {
  bool redirected = false;
  for (torch::jit::Node* node : AllNodes(graph->block())) {
    if (!IsConvolution(node) || node->outputs().size() != 1) continue;
    for (torch::jit::Node* check : RankChecksBesideBatchNorm(node)) {
      check->replaceInput(0, node->input(0));
      redirected = true;
    }
  }
  if (!redirected) return false;
  std::shared_ptr<torch::jit::Graph> folded = graph;
  torch::jit::FoldFrozenConvBatchnorm(folded);
  return true;
}

}  // namespace static_runtime
