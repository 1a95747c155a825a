#include "passes/inline_forks.h"

#include "torch/csrc/jit/passes/inline_fork_wait.h"

namespace static_runtime {
namespace {

// Counts the block's forks (nested blocks too); false if a fork has no
// subgraph or its future a use other than aten::wait.
bool OnlyWaitedForks(const torch::jit::Block* block, size_t* forks) {
  for (const torch::jit::Node* node : block->nodes()) {
    if (node->kind() == c10::prim::fork) {
      if (!node->hasAttribute(c10::attr::Subgraph)) return false;
      ++*forks;
      for (const torch::jit::Use& use : node->output()->uses()) {
        if (use.user->kind() != c10::aten::wait) return false;
      }
    }
    for (const torch::jit::Block* sub_block : node->blocks()) {
      if (!OnlyWaitedForks(sub_block, forks)) return false;
    }
  }
  return true;
}

}  // namespace

bool InlineForks(const std::shared_ptr<torch::jit::Graph>& graph) {
  size_t forks = 0;
  if (!OnlyWaitedForks(graph->block(), &forks) || forks == 0) return false;
  torch::jit::InlineForkWait(graph);
  return true;
}

}  // namespace static_runtime
