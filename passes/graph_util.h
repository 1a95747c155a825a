// Small helpers shared by the passes: walking every node of a graph (including
// sub-blocks), matching a node against an operator overload, replacing a node
// by one of another kind, and naming where a node came from in the source.
#ifndef STATIC_RUNTIME_PASSES_GRAPH_UTIL_H_
#define STATIC_RUNTIME_PASSES_GRAPH_UTIL_H_

#include <string>
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

// Replaces the single-output `node` by a new node of kind `kind` with `inputs`,
// inserted at the same place, carrying over source range and output metadata,
// and destroys `node`. Returns the new node.
torch::jit::Node* ReplaceNode(torch::jit::Node* node, c10::Symbol kind,
                              at::ArrayRef<torch::jit::Value*> inputs);

// reshape, reshape_as, flatten, contiguous: ops that return a view of their
// input when its strides allow it and a copy otherwise.
bool ReturnsViewOrCopyByStrides(c10::Symbol kind);

// Where `node` came from: "file:line:col `<source line>`" (or "line N
// `<source line>`" when the source has no file name), or "<unknown source>".
std::string SourceOf(const torch::jit::Node* node);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_GRAPH_UTIL_H_
