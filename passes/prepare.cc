#include "passes/prepare.h"

#include "errors/status_from_exception.h"
#include "errors/status_macros.h"
#include "glog/logging.h"
#include "ir/graph_util.h"
#include "ir/operators/operators.h"
#include "load/load.h"
#include "passes/check_static_runnable.h"
#include "passes/freeze.h"
#include "passes/graph_schema.h"
#include "passes/inline_forks.h"
#include "passes/pass_table.h"
#include "torch/csrc/jit/passes/canonicalize.h"
#include "torch/csrc/jit/passes/constant_propagation.h"
#include "torch/csrc/jit/passes/dead_code_elimination.h"
#include "torch/csrc/jit/passes/inliner.h"
#include "torch/csrc/jit/passes/remove_mutation.h"

namespace static_runtime {
namespace {

// The module-independent part of preparation, in place: the JIT's passes and
// the cleanup stage.
void OptimizeGraph(std::shared_ptr<torch::jit::Graph>& graph, const Options& options,
                   const std::vector<c10::IValue>& sample_inputs) {
  if (options.enable_tensorexpr_fusion) {
    if (sample_inputs.empty()) {
      LOG(INFO) << "static_runtime: fusion skipped: no sample inputs given";
    } else if (options.fusion_hook) {
      options.fusion_hook(graph, sample_inputs);
    }
  }
  torch::jit::Inline(*graph);
  if (!options.parallel_forks && InlineForks(graph)) {
    torch::jit::Inline(*graph);  // calls in the forked code
  }
  torch::jit::ConstantPropagation(graph);
  graph = torch::jit::Canonicalize(graph);
  torch::jit::ConstantPropagation(graph);
  // copy_ stays: its functional form aten::copy returns `src` itself in
  // LibTorch 1.13 when no conversion is needed, so a later write to the
  // result would write to src (found by //fuzz:random_graph_test).
  torch::jit::RemoveTensorMutation(
      graph, [](torch::jit::Node* node) { return node->kind() != c10::aten::copy_; });
  torch::jit::ConstantPropagation(graph);
  RunPassStage(PassStage::kCleanup, graph, options);
  torch::jit::EliminateDeadCode(graph);
}

// The runtime rewrites, in place.
void ApplyRuntimeRewrites(const std::shared_ptr<torch::jit::Graph>& graph, const Options& options) {
  ops::EnsureOperatorsRegistered();
  RunPassStage(PassStage::kRewrite, graph, options);
  torch::jit::EliminateDeadCode(graph);
}

// Optimizes, rewrites and checks `graph` (owned by the caller).
absl::StatusOr<PreparedGraph> PrepareOwnedGraph(std::shared_ptr<torch::jit::Graph> graph,
                                                c10::FunctionSchema schema, c10::IValue self,
                                                const Options& options,
                                                const std::vector<c10::IValue>& sample_inputs) {
  try {
    OptimizeGraph(graph, options, sample_inputs);
    ApplyRuntimeRewrites(graph, options);
    RunPassStage(PassStage::kFinalize, graph, options);
    graph->lint();
  } catch (const std::exception& e) {
    return StatusFromException(e, "graph preparation failed: ", absl::StatusCode::kInternal);
  }
  RETURN_IF_ERROR(CheckStaticRunnable(graph));
  return PreparedGraph{std::move(graph), std::move(schema), std::move(self)};
}

// Whether a forked subgraph in `block` (or its sub-blocks) reads a module
// attribute: freezing left it there (a module forked inside a forked call).
bool ForksReadAttributes(const torch::jit::Block& block) {
  for (const torch::jit::Node* node : block.nodes()) {
    for (const torch::jit::Block* sub_block : node->blocks()) {
      if (ForksReadAttributes(*sub_block)) return true;
    }
    if (node->kind() == c10::prim::fork && node->hasAttribute(c10::attr::Subgraph)) {
      for (const torch::jit::Node* forked : AllNodes(node->g(c10::attr::Subgraph)->block())) {
        if (forked->kind() == c10::prim::GetAttr) return true;
      }
    }
  }
  return false;
}

}  // namespace

absl::StatusOr<PreparedGraph> FrozenForward(const torch::jit::Module& module, bool is_frozen,
                                            bool parallel_forks, bool optimize_numerics) {
  std::shared_ptr<torch::jit::Graph> graph;
  c10::IValue self;
  c10::optional<c10::FunctionSchema> schema;
  std::string method_name;
  try {
    method_name = ForwardMethodName(module);
    if (!module.find_method(method_name)) {
      return absl::InvalidArgumentError("module has no forward method");
    }
    // The method's module, frozen unless `is_frozen`, after what
    // torch.jit.freeze does after freezing: drop dropout and (with
    // `optimize_numerics`) fold batch norm and add/mul constants into
    // convolutions and linears. FreezeForInference
    // freezes a clone; only inlining forks, which changes the module's
    // methods, needs one of its own first. A frozen module is copied
    // (shallowly, as PyTorch's Static Runtime does): attributes forward
    // assigns change the copy, not the caller's module.
    auto frozen_module = [&](bool inline_forks) -> absl::StatusOr<torch::jit::Module> {
      if (is_frozen) return module.copy();  // forks are inlined later, if at all
      if (!inline_forks) return FreezeForInference(module, method_name, optimize_numerics);
      torch::jit::Module inlined = module.clone();
      InlineForks(inlined.get_method(method_name).graph());
      return FreezeForInference(inlined, method_name, optimize_numerics);
    };
    // Freezing folds the attributes forked subgraphs read too, except those
    // of a module forked inside a forked call: then, as without parallel
    // forks, forked calls are inlined first.
    ASSIGN_OR_RETURN(torch::jit::Module frozen, frozen_module(!parallel_forks));
    if (parallel_forks && !is_frozen &&
        ForksReadAttributes(*frozen.get_method(method_name).graph()->block())) {
      ASSIGN_OR_RETURN(frozen, frozen_module(true));
    }
    graph = frozen.get_method(method_name).graph()->copy();
    if (is_frozen) OptimizeFrozen(graph, optimize_numerics);
    self = frozen._ivalue();
    schema = ForwardSchema(module);
  } catch (const std::exception& e) {
    return StatusFromException(e, "cannot freeze module: ", absl::StatusCode::kInvalidArgument);
  }
  if (graph->inputs().empty()) {
    return absl::InvalidArgumentError("forward's graph has no self input");
  }
  // `self` is unused once the module is frozen, unless forward assigns
  // attributes (freezing keeps those) or the module claimed frozen is not:
  // then the runtime binds the module object to it on every run.
  if (!graph->inputs()[0]->hasUses()) {
    graph->eraseInput(0);
    self = c10::IValue();
  }
  return PreparedGraph{std::move(graph), *std::move(schema), std::move(self)};
}

absl::StatusOr<PreparedGraph> PrepareModule(const torch::jit::Module& module, bool is_frozen,
                                            const Options& options,
                                            const std::vector<c10::IValue>& sample_inputs) {
  RETURN_IF_ERROR(ValidateOptions(options));
  VLOG(1) << "static_runtime: preparing module with " << DescribeOptions(options);
  ASSIGN_OR_RETURN(PreparedGraph frozen, FrozenForward(module, is_frozen, options.parallel_forks,
                                                       options.prepack_weights));
  return PrepareOwnedGraph(std::move(frozen.graph), std::move(frozen.schema),
                           std::move(frozen.self), options, sample_inputs);
}

absl::StatusOr<PreparedGraph> PrepareGraph(const std::shared_ptr<torch::jit::Graph>& graph,
                                           const Options& options,
                                           const std::vector<c10::IValue>& sample_inputs) {
  RETURN_IF_ERROR(ValidateOptions(options));
  std::shared_ptr<torch::jit::Graph> copy = graph->copy();
  return PrepareOwnedGraph(copy, SchemaFromGraph(*copy), c10::IValue(), options, sample_inputs);
}

absl::StatusOr<PreparedGraph> PrepareIR(absl::string_view ir, const Options& options,
                                        const std::vector<c10::IValue>& sample_inputs) {
  ASSIGN_OR_RETURN(std::shared_ptr<torch::jit::Graph> graph, ParseGraphIR(ir));
  return PrepareGraph(graph, options, sample_inputs);
}

absl::StatusOr<PreparedGraph> PrepareFile(const std::string& path, const Options& options,
                                          const std::vector<c10::IValue>& sample_inputs) {
  ASSIGN_OR_RETURN(torch::jit::Module module, LoadModuleFromFile(path));
  return PrepareModule(module, /*is_frozen=*/false, options, sample_inputs);
}

}  // namespace static_runtime
