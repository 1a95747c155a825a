#include "passes/freeze.h"

#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "errors/exception_message.h"
#include "errors/status_from_exception.h"
#include "torch/csrc/jit/passes/freeze_module.h"
#include "torch/csrc/jit/passes/frozen_graph_optimizations.h"
#include "torch/csrc/jit/passes/graph_rewrite_helper.h"

namespace static_runtime {

void OptimizeFrozen(std::shared_ptr<torch::jit::Graph>& graph, bool optimize_numerics) {
  torch::jit::graph_rewrite_helper::replaceConvolutionWithAtenConv(graph);
  torch::jit::OptimizeFrozenGraph(graph, optimize_numerics);
}

absl::StatusOr<torch::jit::Module> FreezeForInference(const torch::jit::Module& module,
                                                      const std::string& method_name,
                                                      bool optimize_numerics) {
  try {
    torch::jit::Module copy = module.clone();
    copy.eval();
    // Freezing keeps `forward`; another entry point must be named.
    torch::jit::Module frozen = torch::jit::freeze_module(
        copy, method_name == "forward" ? std::vector<std::string>{}
                                       : std::vector<std::string>{method_name});
    std::shared_ptr<torch::jit::Graph> graph = frozen.get_method(method_name).graph();
    OptimizeFrozen(graph, optimize_numerics);
    return frozen;
  } catch (const std::exception& e) {
    return StatusFromException(e, "cannot freeze module: ", absl::StatusCode::kInvalidArgument);
  }
}

}  // namespace static_runtime
