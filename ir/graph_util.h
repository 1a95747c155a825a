// Small helpers shared by the passes (and memory/lifetimes): walking every node
// of a graph (including sub-blocks), matching a node against an operator
// overload, replacing a node by one of another kind, whether a type may hold a
// tensor, and naming where a node came from in the source.
#ifndef STATIC_RUNTIME_IR_GRAPH_UTIL_H_
#define STATIC_RUNTIME_IR_GRAPH_UTIL_H_

#include <string>
#include <vector>

#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

// Every node of `block` and of its nested blocks, in program order (a node
// comes before the nodes of its sub-blocks). Safe to mutate the graph while
// iterating over the returned list as long as visited nodes are not destroyed
// before they are reached.
std::vector<torch::jit::Node*> AllNodes(torch::jit::Block* block);

// The node of `block` that holds `node`: itself, or the node whose nested
// block (at any depth) holds it. `node` must be in `block` or below it.
torch::jit::Node* AncestorIn(torch::jit::Node* node, const torch::jit::Block* block);

// True if `node` runs exactly the overload `name`.`overload` ("" = default).
bool IsOverload(const torch::jit::Node* node, const char* name, const char* overload);

// Replaces the single-output `node` by a new node of kind `kind` with `inputs`,
// inserted at the same place, carrying over source range and output metadata,
// and destroys `node`. Returns the new node.
torch::jit::Node* ReplaceNode(torch::jit::Node* node, c10::Symbol kind,
                              at::ArrayRef<torch::jit::Value*> inputs);

// reshape, reshape_as, flatten, contiguous: ops that return a view of their
// input when its strides allow it and a copy otherwise.
bool ReturnsViewOrCopyByStrides(c10::Symbol kind);

// Whether `node` reads strides (aten::stride, aten::is_contiguous): where a
// graph does, whether an op returned a view or a copy is observable, so
// rewrites that make copies of views (copy variants, unpacked splits) must
// leave it alone.
bool ReadsStrides(const torch::jit::Node* node);

// Whether a value of `type` may hold a tensor (a tensor, a container or an
// object that may contain one); false for numbers, strings, None, devices,
// and optionals and tuples of those. The one predicate for "may this alias
// tensor memory" (memory/lifetimes, passes/input_aliases).
bool MayHoldTensor(const c10::TypePtr& type);

// Where `node` came from: "file:line:col `<source line>`" (or "line N
// `<source line>`" when the source has no file name), or "<unknown source>".
std::string SourceOf(const torch::jit::Node* node);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_IR_GRAPH_UTIL_H_
