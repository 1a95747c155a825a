// Small helpers shared by the passes: walking every node of a graph (including
// sub-blocks) and matching a node against an operator overload.
#ifndef STATIC_RUNTIME_PASSES_GRAPH_UTIL_H_
#define STATIC_RUNTIME_PASSES_GRAPH_UTIL_H_

#include <vector>

#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

// Every node of `block` and of its nested blocks, in program order (a node
// comes before the nodes of its sub-blocks). Safe to mutate the graph while
// iterating over the returned list as long as visited nodes are not destroyed
// before they are reached.
std::vector<torch::jit::Node*> AllNodes(torch::jit::Block* block);

// True if `node` runs exactly the overload `name`.`overload` ("" = default).
bool IsOverload(const torch::jit::Node* node, const char* name,
                const char* overload);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_GRAPH_UTIL_H_
