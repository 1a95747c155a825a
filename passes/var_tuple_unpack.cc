#include "passes/var_tuple_unpack.h"

#include <vector>

#include "ir/operators/operators.h"

namespace static_runtime {
namespace {

using torch::jit::Node;

// Merges each run of two or more adjacent TupleUnpack nodes of `block` (and
// of its nodes' blocks).
bool MergeRuns(torch::jit::Block* block) {
  bool changed = false;
  std::vector<std::vector<Node*>> runs;
  std::vector<Node*> run;
  auto close_run = [&] {
    if (run.size() >= 2) runs.push_back(run);
    run.clear();
  };
  for (Node* node : block->nodes()) {
    for (torch::jit::Block* sub_block : node->blocks()) changed |= MergeRuns(sub_block);
    if (node->kind() == c10::prim::TupleUnpack) {
      run.push_back(node);
    } else {
      close_run();
    }
  }
  close_run();
  for (const std::vector<Node*>& unpacks : runs) {
    std::vector<torch::jit::Value*> tuples;
    size_t num_outputs = 0;
    for (Node* unpack : unpacks) {
      tuples.push_back(unpack->input());
      num_outputs += unpack->outputs().size();
    }
    Node* merged = block->owningGraph()->create(ops::kVarTupleUnpack, tuples, num_outputs);
    merged->insertBefore(unpacks.front());
    merged->copyMetadata(unpacks.front());
    size_t output = 0;
    for (Node* unpack : unpacks) {
      for (torch::jit::Value* element : unpack->outputs()) {
        merged->output(output)->copyMetadata(element);
        element->replaceAllUsesWith(merged->output(output));
        ++output;
      }
      unpack->destroy();
    }
    changed = true;
  }
  return changed;
}

}  // namespace

bool UseVarTupleUnpack(const std::shared_ptr<torch::jit::Graph>& graph) {
  ops::EnsureOperatorsRegistered();
  return MergeRuns(graph->block());
}

}  // namespace static_runtime
