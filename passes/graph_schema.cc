#include "passes/graph_schema.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace static_runtime {

c10::FunctionSchema SchemaFromGraph(const torch::jit::Graph& graph) {
  std::vector<c10::Argument> arguments;
  for (size_t i = 0; i < graph.inputs().size(); ++i) {
    const torch::jit::Value* input = graph.inputs()[i];
    std::string name = input->hasDebugName() ? input->debugName() : absl::StrCat("input_", i);
    arguments.emplace_back(std::move(name), input->type());
  }
  std::vector<c10::Argument> returns;
  for (const torch::jit::Value* output : graph.outputs()) {
    returns.emplace_back("", output->type());
  }
  return c10::FunctionSchema("forward", "", std::move(arguments), std::move(returns));
}

}  // namespace static_runtime
