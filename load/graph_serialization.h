// A graph as text plus a table of values, for compiled model packages: the
// text is the IR a copy of the graph prints (Graph::toString), in which every
// node attribute LibTorch's IR parser cannot read back exactly (tensors,
// floats, strings, lists, IValues, subgraphs and types, the constants' values
// among them) is replaced by an int attribute `sr_<kind>__<name>` holding its
// index in the table; a type (prim::isinstance's) is held as its annotation. Subgraphs (a fused
// group's, a fork's) are serialized the same way, as strings in the same table. Ints and int lists
// stay in the text.
//
// DeserializeGraph is the inverse. It trusts nothing: a malformed text, an
// index out of range, a value of the wrong kind, subgraphs nested more than
// 16 deep or a graph that fails LibTorch's lint give InvalidArgument naming
// what was wrong.
#ifndef STATIC_RUNTIME_LOAD_GRAPH_SERIALIZATION_H_
#define STATIC_RUNTIME_LOAD_GRAPH_SERIALIZATION_H_

#include <memory>
#include <string>
#include <vector>

#include "ATen/core/ivalue.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

struct SerializedGraph {
  std::string ir;
  std::vector<c10::IValue> table;
};

// InvalidArgument for a type that does not read back from its annotation (a
// class), naming the node and the attribute.
absl::StatusOr<SerializedGraph> SerializeGraph(const torch::jit::Graph& graph);

absl::StatusOr<std::shared_ptr<torch::jit::Graph>> DeserializeGraph(
    absl::string_view ir, const std::vector<c10::IValue>& table);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_LOAD_GRAPH_SERIALIZATION_H_
