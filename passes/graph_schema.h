// The schema of a graph taken as a function: its inputs as the arguments
// (named after their debug names, else input_<i>) and its outputs as the
// returns, named "forward". What the runtime checks a caller's arguments
// against when it prepares a bare graph (no module method to take it from).
#ifndef STATIC_RUNTIME_PASSES_GRAPH_SCHEMA_H_
#define STATIC_RUNTIME_PASSES_GRAPH_SCHEMA_H_

#include "ATen/core/function_schema.h"
#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

c10::FunctionSchema SchemaFromGraph(const torch::jit::Graph& graph);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_GRAPH_SCHEMA_H_
