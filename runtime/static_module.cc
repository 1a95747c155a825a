#include "runtime/static_module.h"

#include <functional>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "memory/lifetimes.h"
#include "errors/exception_message.h"
#include "ir/operators/operators.h"
#include "runtime/forked_call.h"
#include "runtime/model_cache.h"
#include "runtime/static_runtime.h"

namespace static_runtime {

StaticModule::StaticModule(PreparedGraph prepared, Options options, ValueLayout layout,
                           BlockPlan plan)
    : prepared_(std::move(prepared)),
      options_(std::move(options)),
      layout_(std::move(layout)),
      plan_(std::move(plan)),
      kernel_counts_(CountKernels(plan_)) {
  if (!options_.optimize_memory || !options_.enable_out_variant) return;
  // Out-variant nodes in every block: values inside If branches and Loop
  // bodies are planned too (memory/lifetimes.h).
  absl::flat_hash_set<const torch::jit::Node*> out_variant_nodes;
  std::function<void(const BlockPlan&)> collect = [&](const BlockPlan& block) {
    for (const NodePlan& node : block.nodes) {
      if (node.control == NodePlan::Control::kKernel &&
          node.info->kind == KernelKind::kOutVariant) {
        out_variant_nodes.insert(node.info->node);
      }
      for (const BlockPlan& sub_block : node.blocks) collect(sub_block);
    }
  };
  collect(plan_);
  const memory::LifetimeAnalysis analysis = memory::AnalyzeLifetimes(
      prepared_.graph,
      [&](const torch::jit::Node* node) { return out_variant_nodes.contains(node); },
      // A fused group's nodes are functional (see passes/fuse_pointwise.h).
      [](const torch::jit::Node* node) { return node->kind() == ops::kFusedPointwise; });
  for (const memory::ManagedValue& managed : analysis.managed) {
    managed_slots_.push_back(layout_.SlotOf(managed.value));
    managed_lifetimes_.push_back({managed.first, managed.last, 0});
  }
  if (!options_.manage_output_tensors) return;
  for (const memory::ManagedValue& output : analysis.outputs) {
    output_slots_.push_back(layout_.SlotOf(output.value));
    output_lifetimes_.push_back({output.first, output.last, 0});
  }
}

absl::StatusOr<std::shared_ptr<StaticModule>> StaticModule::BindKernels(PreparedGraph prepared,
                                                                        const Options& options) {
  absl::StatusOr<ValueLayout> layout = ValueLayout::Build(*prepared.graph);
  if (!layout.ok()) return layout.status();
  absl::StatusOr<BlockPlan> plan = BuildPlan(
      *prepared.graph, *layout, options.enable_out_variant,
      [&options](const torch::jit::Node* fork) { return MakeForkedCallKernel(fork, options); });
  if (!plan.ok()) return plan.status();
  return std::shared_ptr<StaticModule>(
      new StaticModule(std::move(prepared), options, *std::move(layout), *std::move(plan)));
}

absl::StatusOr<StaticModule::Ptr> StaticModule::FromPrepared(
    PreparedGraph prepared, const Options& options, const std::vector<c10::IValue>& sample_inputs) {
  absl::StatusOr<std::shared_ptr<StaticModule>> bound = BindKernels(std::move(prepared), options);
  if (!bound.ok()) return bound.status();
  std::shared_ptr<StaticModule>& module = *bound;
  for (const c10::IValue& input : sample_inputs) {
    module->planned_inputs_.push_back(DescribeValue(input));
  }
  if (!sample_inputs.empty() && !module->managed_slots_.empty()) {
    // One run on the samples gives every managed tensor's size and dtype, so
    // even the first real run is planned.
    StaticRuntime runtime(module);
    absl::StatusOr<c10::IValue> result = runtime.Run(sample_inputs);
    if (!result.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("running the sample inputs failed: ", result.status().message()));
    }
    module->initial_records_ = runtime.memory_planner()->records();
    runtime.ReleaseOutputs();
  }
  return Ptr(std::move(module));
}

namespace {

absl::StatusOr<StaticModule::Ptr> FromPreparedOrError(
    absl::StatusOr<PreparedGraph> prepared, const Options& options,
    const std::vector<c10::IValue>& sample_inputs) {
  if (!prepared.ok()) return prepared.status();
  try {
    return StaticModule::FromPrepared(*std::move(prepared), options, sample_inputs);
  } catch (const std::exception& e) {
    // A graph the passes accepted but LibTorch cannot take apart.
    return absl::InvalidArgumentError(
        absl::StrCat("cannot build the runtime for the prepared graph: ", ExceptionMessage(e)));
  }
}

}  // namespace

absl::StatusOr<StaticModule::Ptr> StaticModule::FromModule(
    const torch::jit::Module& module, bool is_frozen, const Options& options,
    const std::vector<c10::IValue>& sample_inputs) {
  return FromPreparedOrError(PrepareModule(module, is_frozen, options, sample_inputs),
                             options, sample_inputs);
}

absl::StatusOr<StaticModule::Ptr> StaticModule::FromGraph(
    const std::shared_ptr<torch::jit::Graph>& graph, const Options& options,
    const std::vector<c10::IValue>& sample_inputs) {
  return FromPreparedOrError(PrepareGraph(graph, options, sample_inputs), options,
                             sample_inputs);
}

absl::StatusOr<StaticModule::Ptr> StaticModule::FromIR(
    absl::string_view ir, const Options& options,
    const std::vector<c10::IValue>& sample_inputs) {
  return FromPreparedOrError(PrepareIR(ir, options, sample_inputs), options, sample_inputs);
}

absl::StatusOr<StaticModule::Ptr> StaticModule::FromFile(
    const std::string& path, const Options& options,
    const std::vector<c10::IValue>& sample_inputs) {
  const std::string cache_directory = CacheDirectory(options);
  if (!cache_directory.empty() && !options.enable_tensorexpr_fusion) {
    return FromFileThroughCache(path, cache_directory, options, sample_inputs);
  }
  return FromPreparedOrError(PrepareFile(path, options, sample_inputs), options,
                             sample_inputs);
}

}  // namespace static_runtime
