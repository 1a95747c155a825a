#include "runtime/static_module.h"

#include <algorithm>
#include <functional>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "errors/exception_message.h"
#include "errors/status_from_exception.h"
#include "errors/status_macros.h"
#include "execution/background_work.h"
#include "ir/graph_util.h"
#include "ir/operators/operators.h"
#include "memory/lifetimes.h"
#include "ops/prim/recycled_containers.h"
#include "passes/fuse_pointwise.h"
#include "runtime/arguments.h"
#include "runtime/forked_call.h"
#include "runtime/module_state.h"
#include "runtime/runtime_state.h"
#include "runtime/static_runtime.h"

namespace static_runtime {

namespace {

// The lifetimes of the tensors a run of `state` manages.
// Sets every node's NodeDescription::planned_outputs from the plan's slots.
void CountPlannedOutputs(BlockPlan& block, const absl::flat_hash_set<ValueIndex>& planned) {
  for (size_t i = 0; i < block.nodes.size(); ++i) {
    size_t count = 0;
    for (ValueIndex slot : block.nodes[i].outputs()) count += planned.contains(slot);
    block.node_infos[i].planned_outputs = count;
    for (BlockPlan& sub_block : block.nodes[i].blocks) CountPlannedOutputs(sub_block, planned);
  }
}

void PlanLifetimes(ModuleState& state) {
  if (!state.options.optimize_memory || !state.options.enable_out_variant) return;
  // Out-variant nodes in every block: values inside If branches and Loop
  // bodies are planned too (memory/lifetimes.h).
  absl::flat_hash_set<const torch::jit::Node*> out_variant_nodes;
  std::function<void(const BlockPlan&)> collect = [&](const BlockPlan& block) {
    for (const NodePlan& node : block.nodes) {
      if (node.kind == NodeKind::kOutVariant) {
        out_variant_nodes.insert(node.info->node);
      }
      for (const BlockPlan& sub_block : node.blocks) collect(sub_block);
    }
  };
  collect(state.plan);
  const memory::LifetimeAnalysis analysis = memory::AnalyzeLifetimes(
      state.prepared.graph,
      [&](const torch::jit::Node* node) { return out_variant_nodes.contains(node); },
      [](const torch::jit::Node* node) { return ops::OnlyReadsInputs(node->kind()); });
  for (const memory::ManagedValue& managed : analysis.managed) {
    state.managed_slots.push_back(state.layout.SlotOf(managed.value));
    state.managed_lifetimes.push_back({managed.first, managed.last, 0});
  }
  for (const torch::jit::Value* holder : analysis.holders) {
    state.holder_slots.push_back(state.layout.SlotOf(holder));
  }
  if (state.options.manage_output_tensors) {
    for (const memory::ManagedValue& output : analysis.outputs) {
      state.output_slots.push_back(state.layout.SlotOf(output.value));
      state.output_lifetimes.push_back({output.first, output.last, 0});
    }
  }
  if (state.options.group_output_allocations) {
    const absl::flat_hash_set<ValueIndex> in_output_buffer(state.output_slots.begin(),
                                                           state.output_slots.end());
    for (const torch::jit::Value* value : analysis.escaping) {
      const ValueIndex slot = state.layout.SlotOf(value);
      if (!in_output_buffer.contains(slot)) state.slab_slots.push_back(slot);
    }
  }
}

// The slots of the containers nodes build and refill from run to run, and
// the holders among them (last in holder_slots, then moved out of it).
void FindRecycledContainers(ModuleState& state) {
  for (const torch::jit::Node* node : AllNodes(state.prepared.graph->block())) {
    if (BuildsRecycledContainer(node))
      state.recycled_slots.push_back(state.layout.SlotOf(node->output()));
  }
  const absl::flat_hash_set<ValueIndex> recycled(state.recycled_slots.begin(),
                                                 state.recycled_slots.end());
  auto plain_end = std::stable_partition(state.holder_slots.begin(), state.holder_slots.end(),
                                         [&](ValueIndex slot) { return !recycled.contains(slot); });
  state.recycled_holder_slots.assign(plain_end, state.holder_slots.end());
  state.holder_slots.erase(plain_end, state.holder_slots.end());
}

}  // namespace

StaticModule::StaticModule(std::unique_ptr<ModuleState> state) : state_(std::move(state)) {}
StaticModule::~StaticModule() = default;

const ModuleState& ModuleState::Of(const StaticModule& module) { return *module.state_; }
ModuleState& ModuleState::MutableOf(StaticModule& module) { return *module.state_; }

std::shared_ptr<StaticModule> ModuleState::NewModule(std::unique_ptr<ModuleState> state) {
  state->kernel_counts = CountKernels(state->plan);
  PlanLifetimes(*state);
  FindRecycledContainers(*state);
  absl::flat_hash_set<ValueIndex> planned(state->managed_slots.begin(), state->managed_slots.end());
  planned.insert(state->output_slots.begin(), state->output_slots.end());
  CountPlannedOutputs(state->plan, planned);
  return std::shared_ptr<StaticModule>(new StaticModule(std::move(state)));
}

const std::shared_ptr<torch::jit::Graph>& StaticModule::graph() const {
  return state_->prepared.graph;
}
const c10::FunctionSchema& StaticModule::schema() const { return state_->prepared.schema; }
const Options& StaticModule::options() const { return state_->options; }
const KernelCounts& StaticModule::kernel_counts() const { return state_->kernel_counts; }
size_t StaticModule::planned_tensors() const { return state_->managed_slots.size(); }
size_t StaticModule::output_buffer_tensors() const { return state_->output_slots.size(); }
const std::vector<std::string>& StaticModule::planned_inputs() const {
  return state_->planned_inputs;
}

namespace {

void AppendDescriptions(const BlockPlan& block, std::vector<NodeDescription>& descriptions) {
  for (const NodePlan& node : block.nodes) {
    descriptions.push_back(*node.info);
    if (node.info->caches != nullptr) descriptions.back().caches = node.info->caches->Stats();
    for (const BlockPlan& sub_block : node.blocks) AppendDescriptions(sub_block, descriptions);
  }
}

// Whether the node before or after `node` (constants aside) is a fused group.
bool NextToFusedGroup(const torch::jit::Node* node) {
  const torch::jit::Node* previous = node->prev();
  while (previous->kind() == c10::prim::Constant) previous = previous->prev();
  const torch::jit::Node* next = node->next();
  while (next->kind() == c10::prim::Constant) next = next->next();
  return previous->kind() == ops::kFusedPointwise || next->kind() == ops::kFusedPointwise;
}

}  // namespace

std::vector<NodeDescription> StaticModule::DescribeNodes() const {
  std::vector<NodeDescription> descriptions;
  AppendDescriptions(state_->plan, descriptions);
  const torch::jit::AliasDb alias_db(state_->prepared.graph);
  for (NodeDescription& description : descriptions) {
    if (description.node->kind() == ops::kFusedPointwise || !NextToFusedGroup(description.node)) {
      continue;
    }
    const std::string why = WhyNotFusible(description.node, alias_db);
    description.not_fused_reason =
        why.empty() ? "it shares no value with the group next to it" : why;
  }
  return descriptions;
}

namespace {

void AddKernelCaches(const BlockPlan& block, KernelCacheStats& stats) {
  for (const NodePlan& node : block.nodes) {
    if (node.info->caches != nullptr) stats += node.info->caches->Stats();
    for (const BlockPlan& sub_block : node.blocks) AddKernelCaches(sub_block, stats);
  }
}

}  // namespace

KernelCacheStats StaticModule::KernelCaches() const {
  KernelCacheStats stats;
  AddKernelCaches(state_->plan, stats);
  return stats;
}

absl::StatusOr<std::vector<c10::IValue>> StaticModule::Bind(absl::Span<const c10::IValue> args,
                                                            const KwargMap& kwargs) const {
  return BindArguments(schema(), args, kwargs);
}

absl::StatusOr<std::shared_ptr<StaticModule>> BindKernels(PreparedGraph prepared,
                                                          const Options& options) {
  ASSIGN_OR_RETURN(ValueLayout layout, ValueLayout::Build(*prepared.graph));
  absl::StatusOr<BlockPlan> plan = BuildPlan(
      *prepared.graph, layout, options.enable_out_variant,
      [&options](const torch::jit::Node* fork) { return MakeForkedCallKernel(fork, options); },
      options.shape_plans_per_kernel);
  RETURN_IF_ERROR(plan.status());
  std::unique_ptr<ModuleState> state(
      new ModuleState(std::move(prepared), options, std::move(layout), *std::move(plan)));
  return ModuleState::NewModule(std::move(state));
}

absl::StatusOr<StaticModule::Ptr> ModuleFromPrepared(PreparedGraph prepared, const Options& options,
                                                     const SampleInputs& sample_inputs) {
  ASSIGN_OR_RETURN(std::shared_ptr<StaticModule> bound, BindKernels(std::move(prepared), options));
  ModuleState& state = ModuleState::MutableOf(*bound);
  for (const std::vector<c10::IValue>& set : sample_inputs.sets()) {
    for (const c10::IValue& input : set) state.planned_inputs.push_back(DescribeValue(input));
  }
  if (!sample_inputs.empty()) {
    // A run on each set gives every managed tensor's largest size and its
    // dtype (and the output slab's), so even the first real run is
    // planned; and the kernels meet each set's shapes.
    StaticRuntime runtime(bound);
    const std::vector<std::vector<c10::IValue>>& sets = sample_inputs.sets();
    for (size_t i = 0; i < sets.size(); ++i) {
      absl::StatusOr<c10::IValue> result = runtime.Run(sets[i]);
      if (!result.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("running the sample inputs",
                         sets.size() > 1 ? absl::StrCat(" (set ", i, " of ", sets.size(), ")") : "",
                         " failed: ", result.status().message()));
      }
      runtime.ReleaseOutputs();
    }
    const RuntimeState& sampled = RuntimeState::Of(runtime);
    if (sampled.planner) state.initial_records = sampled.planner->records();
    if (sampled.output_slab) state.initial_slab_records = sampled.output_slab->records();
    // What the runs left to the background (weight layouts) is done first.
    WaitForBackgroundWork();
  }
  StartBackgroundThread();
  return StaticModule::Ptr(std::move(bound));
}

namespace {

absl::StatusOr<StaticModule::Ptr> FromPreparedOrError(absl::StatusOr<PreparedGraph> prepared,
                                                      const Options& options,
                                                      const SampleInputs& sample_inputs) {
  RETURN_IF_ERROR(prepared.status());
  try {
    return ModuleFromPrepared(*std::move(prepared), options, sample_inputs);
  } catch (const std::exception& e) {
    // A graph the passes accepted but LibTorch cannot take apart.
    return StatusFromException(
        e, "cannot build the runtime for the prepared graph: ", absl::StatusCode::kInvalidArgument);
  }
}

}  // namespace

absl::StatusOr<StaticModule::Ptr> StaticModule::FromModule(const torch::jit::Module& module,
                                                           bool is_frozen, const Options& options,
                                                           const SampleInputs& sample_inputs) {
  return FromPreparedOrError(PrepareModule(module, is_frozen, options, sample_inputs.first()),
                             options, sample_inputs);
}

absl::StatusOr<StaticModule::Ptr> StaticModule::FromGraph(
    const std::shared_ptr<torch::jit::Graph>& graph, const Options& options,
    const SampleInputs& sample_inputs) {
  return FromPreparedOrError(PrepareGraph(graph, options, sample_inputs.first()), options,
                             sample_inputs);
}

absl::StatusOr<StaticModule::Ptr> StaticModule::FromIR(absl::string_view ir, const Options& options,
                                                       const SampleInputs& sample_inputs) {
  return FromPreparedOrError(PrepareIR(ir, options, sample_inputs.first()), options, sample_inputs);
}

absl::StatusOr<StaticModule::Ptr> StaticModule::FromFile(const std::string& path,
                                                         const Options& options,
                                                         const SampleInputs& sample_inputs) {
  return FromPreparedOrError(PrepareFile(path, options, sample_inputs.first()), options,
                             sample_inputs);
}

}  // namespace static_runtime
