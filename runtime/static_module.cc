#include "runtime/static_module.h"

#include <utility>

namespace static_runtime {

StaticModule::StaticModule(PreparedGraph prepared, Options options, ValueLayout layout,
                           BlockPlan plan)
    : prepared_(std::move(prepared)),
      options_(std::move(options)),
      layout_(std::move(layout)),
      plan_(std::move(plan)),
      kernel_counts_(CountKernels(plan_)) {}

absl::StatusOr<StaticModule::Ptr> StaticModule::FromPrepared(PreparedGraph prepared,
                                                             const Options& options) {
  absl::StatusOr<ValueLayout> layout = ValueLayout::Build(*prepared.graph);
  if (!layout.ok()) return layout.status();
  absl::StatusOr<BlockPlan> plan =
      BuildPlan(*prepared.graph, *layout, options.enable_out_variant);
  if (!plan.ok()) return plan.status();
  return Ptr(new StaticModule(std::move(prepared), options, *std::move(layout),
                              *std::move(plan)));
}

namespace {

absl::StatusOr<StaticModule::Ptr> FromPreparedOrError(
    absl::StatusOr<PreparedGraph> prepared, const Options& options) {
  if (!prepared.ok()) return prepared.status();
  return StaticModule::FromPrepared(*std::move(prepared), options);
}

}  // namespace

absl::StatusOr<StaticModule::Ptr> StaticModule::FromModule(
    const torch::jit::Module& module, bool is_frozen, const Options& options,
    const std::vector<c10::IValue>& sample_inputs) {
  return FromPreparedOrError(PrepareModule(module, is_frozen, options, sample_inputs),
                             options);
}

absl::StatusOr<StaticModule::Ptr> StaticModule::FromGraph(
    const std::shared_ptr<torch::jit::Graph>& graph, const Options& options,
    const std::vector<c10::IValue>& sample_inputs) {
  return FromPreparedOrError(PrepareGraph(graph, options, sample_inputs), options);
}

absl::StatusOr<StaticModule::Ptr> StaticModule::FromIR(
    absl::string_view ir, const Options& options,
    const std::vector<c10::IValue>& sample_inputs) {
  return FromPreparedOrError(PrepareIR(ir, options, sample_inputs), options);
}

absl::StatusOr<StaticModule::Ptr> StaticModule::FromFile(
    const std::string& path, const Options& options,
    const std::vector<c10::IValue>& sample_inputs) {
  return FromPreparedOrError(PrepareFile(path, options, sample_inputs), options);
}

}  // namespace static_runtime
