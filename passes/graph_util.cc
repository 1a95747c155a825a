#include "passes/graph_util.h"

namespace static_runtime {
namespace {

void Collect(torch::jit::Block* block, std::vector<torch::jit::Node*>& nodes) {
  for (torch::jit::Node* node : block->nodes()) {
    nodes.push_back(node);
    for (torch::jit::Block* sub_block : node->blocks()) Collect(sub_block, nodes);
  }
}

}  // namespace

std::vector<torch::jit::Node*> AllNodes(torch::jit::Block* block) {
  std::vector<torch::jit::Node*> nodes;
  Collect(block, nodes);
  return nodes;
}

bool IsOverload(const torch::jit::Node* node, const char* name,
                const char* overload) {
  if (node->kind() != c10::Symbol::fromQualString(name)) return false;
  const c10::FunctionSchema* schema = node->maybeSchema();
  return schema != nullptr && schema->overload_name() == overload;
}

torch::jit::Node* ReplaceNode(torch::jit::Node* node, c10::Symbol kind,
                              at::ArrayRef<torch::jit::Value*> inputs) {
  torch::jit::Node* replacement = node->owningGraph()->create(kind, inputs, 1);
  replacement->insertBefore(node);
  replacement->copyMetadata(node);
  replacement->output()->copyMetadata(node->output());
  node->output()->replaceAllUsesWith(replacement->output());
  node->destroy();
  return replacement;
}

}  // namespace static_runtime
