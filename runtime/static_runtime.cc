#include "runtime/static_runtime.h"

#include <atomic>
#include <chrono>
#include <type_traits>
#include <utility>

#include "ATen/Parallel.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "c10/core/InferenceMode.h"
#include "errors/status_from_exception.h"
#include "errors/status_macros.h"
#include "execution/background_work.h"
#include "memory/heap_release.h"
#include "ops/prim/native_async.h"
#include "ops/prim/recycled_containers.h"
#include "runtime/arguments.h"
#include "runtime/block_runner.h"
#include "runtime/private_constants.h"
#include "runtime/runtime_state.h"

namespace static_runtime {

static_assert(std::is_same_v<TaskLauncher, ops::TaskLauncher>);

namespace {

// memory::ReleaseFreedHeap on the background thread, so that the call whose
// arena grew does not wait for the walk over the heap; a release already
// waiting there covers the growths since it was posted.
void ReleaseFreedHeapInBackground() {
  static std::atomic<bool> posted{false};
  if (posted.exchange(true)) return;
  PostBackgroundWork([] {
    posted.store(false);
    memory::ReleaseFreedHeap();
  });
}

}  // namespace

RuntimeState::RuntimeState(std::shared_ptr<const StaticModule> module_ptr)
    : module(std::move(module_ptr)),
      module_state(ModuleState::Of(*module)),
      values(module_state.layout.num_slots()) {
  const ValueLayout& layout = module_state.layout;
  for (size_t i = 0; i < layout.constants().size(); ++i) {
    values[layout.num_inputs() + i] = PrivateConstant(layout.constants()[i]);
  }
  if (!module_state.managed_slots.empty()) {
    planner.emplace(
        std::vector<uint32_t>(module_state.managed_slots.begin(), module_state.managed_slots.end()),
        module_state.managed_lifetimes, module_state.initial_records);
    if (module_state.options.poison_recycled_memory) planner->EnablePoisoning();
    if (module_state.options.release_freed_memory)
      planner->ReleaseFreedHeapWhenGrowing(ReleaseFreedHeapInBackground);
  }
  if (!module_state.output_slots.empty()) {
    output_buffer.emplace(
        std::vector<uint32_t>(module_state.output_slots.begin(), module_state.output_slots.end()),
        module_state.output_lifetimes, std::vector<memory::TensorRecord>{},
        /*handed_out=*/true);
  }
  if (!module_state.slab_slots.empty()) {
    output_slab.emplace(
        std::vector<uint32_t>(module_state.slab_slots.begin(), module_state.slab_slots.end()),
        module_state.initial_slab_records);
  }
  // The recycled containers are emptied apart (ClearNonConstants).
  const absl::flat_hash_set<ValueIndex> recycled(module_state.recycled_slots.begin(),
                                                 module_state.recycled_slots.end());
  for (size_t i = 0; i < values.size(); ++i) {
    const bool constant = i >= layout.num_inputs() && i < layout.constants_end();
    const bool kept =
        (planner && planner->IsManaged(i)) || (output_buffer && output_buffer->IsManaged(i));
    if (!constant && !kept && !recycled.contains(i))
      cleared_slots.push_back(static_cast<uint32_t>(i));
  }
}

RuntimeState& RuntimeState::Of(StaticRuntime& runtime) { return *runtime.state_; }
const RuntimeState& RuntimeState::Of(const StaticRuntime& runtime) { return *runtime.state_; }

namespace {

// Reports the time since the last call as a phase of the run, if observed.
class PhaseClock {
 public:
  explicit PhaseClock(NodeObserver* observer) : observer_(observer) {
    if (observer_) last_ = std::chrono::steady_clock::now();
  }
  void Lap(const char* name) {
    if (!observer_) return;
    const auto now = std::chrono::steady_clock::now();
    observer_->Phase(name, std::chrono::duration<double, std::micro>(now - last_).count());
    last_ = now;
  }

 private:
  NodeObserver* observer_;
  std::chrono::steady_clock::time_point last_;
};

// The end of a run: every value dropped but the constants and what the
// planners keep, and the containers nothing else holds emptied for the next
// run (after the other slots let go of them).
void ClearNonConstants(RuntimeState& state) {
  for (uint32_t slot : state.cleared_slots) state.values[slot] = c10::IValue();
  for (ValueIndex slot : state.module_state.recycled_slots) DropOrEmpty(state.values[slot]);
}

// Points the planned tensors at their memory (the arena grows, the output
// buffer, a new output slab); a failed allocation is kResourceExhausted.
absl::Status AllocateMemory(RuntimeState& state) {
  const absl::Span<c10::IValue> values = absl::MakeSpan(state.values);
  try {
    if (state.planner) state.planner->Allocate(values);
    if (state.output_buffer) state.output_buffer->Allocate(values);
    if (state.output_slab) state.output_slab->Allocate(values);
  } catch (const std::exception& e) {
    return StatusFromException(e, "allocating the run's planned memory: ");
  }
  return absl::OkStatus();
}

// One run: binds the arguments, allocates the planned memory, runs the plan
// with `run_plan`, collects the result and releases everything.
template <typename RunPlan>
absl::StatusOr<c10::IValue> RunOnce(RuntimeState& state, const std::vector<c10::IValue>& args,
                                    const KwargMap& kwargs, RunPlan run_plan,
                                    NodeObserver* observer) {
  PhaseClock clock(observer);
  c10::InferenceMode inference_mode(state.module_state.options.inference_mode);
  if (state.outputs_pending) {
    return absl::FailedPreconditionError(
        "the outputs of the previous run live in the runtime's output buffer "
        "(manage_output_tensors): call ReleaseOutputs() before running again");
  }
  std::vector<c10::IValue>& values = state.values;
  // The arguments go straight into the input slots, after the module object
  // if the graph reads or writes its attributes.
  const PreparedGraph& prepared = state.module_state.prepared;
  const size_t first_argument = prepared.self.isNone() ? 0 : 1;
  if (first_argument == 1) values[0] = prepared.self;
  absl::Status bound = BindArgumentsInto(
      prepared.schema, args, kwargs,
      absl::MakeSpan(values.data() + first_argument, prepared.schema.arguments().size()));
  if (!bound.ok()) {
    ClearNonConstants(state);
    return bound;
  }
  clock.Lap("bind");

  const BlockPlan& plan = state.module_state.plan;
  absl::Status status = AllocateMemory(state);
  clock.Lap("allocate");
  if (status.ok()) status = run_plan(plan, values.data());
  clock.Lap("nodes");
  c10::IValue result;
  if (status.ok()) {
    if (plan.outputs.size() == 1) {
      result = values[plan.outputs[0]];
    } else {
      std::vector<c10::IValue> outputs;
      outputs.reserve(plan.outputs.size());
      for (ValueIndex slot : plan.outputs) outputs.push_back(values[slot]);
      result = c10::ivalue::Tuple::create(std::move(outputs));
    }
  }
  // A failed run's sizes are partial: only a successful run plans.
  if (state.output_slab && status.ok()) state.output_slab->Learn(values);
  if (state.planner) {
    for (ValueIndex slot : state.module_state.holder_slots) values[slot] = c10::IValue();
    for (ValueIndex slot : state.module_state.recycled_holder_slots) DropOrEmpty(values[slot]);
    state.planner->Release(absl::MakeSpan(values), /*learn=*/status.ok());
  }
  clock.Lap("release");
  if (state.output_buffer) {
    if (status.ok()) {
      state.outputs_pending = true;
    } else {
      state.output_buffer->Release(absl::MakeSpan(values), /*learn=*/false);
    }
  }
  ClearNonConstants(state);
  RETURN_IF_ERROR(status);
  return result;
}

// RunOnce, keeping its status and its failing node's exception.
template <typename RunPlan>
absl::StatusOr<c10::IValue> RunWith(RuntimeState& state, const std::vector<c10::IValue>& args,
                                    const KwargMap& kwargs, RunPlan run_plan,
                                    NodeObserver* observer) {
  // This thread's OpenMP thread count set to the process's intra-op count
  // (at::set_num_threads), as ATen's parallel ops set it on first use: the
  // oneDNN kernels read it, and on a thread that has not yet run one of
  // those ops they ran on every core (a caller's new thread; a model whose
  // only ATen op had been replaced by a kernel of ours).
  at::internal::lazy_init_num_threads();
  TakeNodeException();  // one left by a caller's own RunBlock on this thread
  absl::StatusOr<c10::IValue> result = RunOnce(state, args, kwargs, run_plan, observer);
  state.last_status = result.status();
  state.last_exception = result.ok() ? nullptr : TakeNodeException();
  return result;
}

// How a run of `state` runs its plan: RunBlock, or with an `observer`
// RunBlockObserved; RunBlockPoisoning when the planner poisons.
struct PlanRunner {
  RuntimeState& state;
  NodeObserver* observer;
  absl::Status operator()(const BlockPlan& plan, c10::IValue* values) const {
    if (state.planner && state.planner->poisoning()) {
      return RunBlockPoisoning(plan, values, *state.planner, observer);
    }
    if (observer != nullptr) return RunBlockObserved(plan, values, *observer);
    return RunBlock(plan, values);
  }
};

absl::Status StillRunningAsync() {
  return absl::FailedPreconditionError(
      "a RunAsync of this runtime has not completed: wait for its future before running again");
}

}  // namespace

StaticRuntime::StaticRuntime(StaticModule::Ptr module)
    : state_(std::make_unique<RuntimeState>(std::move(module))) {}

StaticRuntime::~StaticRuntime() = default;

absl::StatusOr<c10::IValue> StaticRuntime::Run(const std::vector<c10::IValue>& args,
                                               const KwargMap& kwargs) {
  if (state_->running_async.load(std::memory_order_acquire)) return StillRunningAsync();
  return RunWith(*state_, args, kwargs, PlanRunner{*state_, nullptr}, nullptr);
}

c10::intrusive_ptr<c10::ivalue::Future> StaticRuntime::RunAsync(std::vector<c10::IValue> args,
                                                                KwargMap kwargs,
                                                                TaskLauncher launcher) {
  if (state_->running_async.exchange(true, std::memory_order_acq_rel)) {
    auto future = c10::make_intrusive<c10::ivalue::Future>(c10::AnyType::get());
    ops::CompleteNow(future, [] { return absl::StatusOr<c10::IValue>(StillRunningAsync()); });
    return future;
  }
  return ops::RunAsTask(
      [state = state_.get(), args = std::move(args), kwargs = std::move(kwargs)] {
        absl::StatusOr<c10::IValue> result =
            RunWith(*state, args, kwargs, PlanRunner{*state, nullptr}, nullptr);
        state->running_async.store(false, std::memory_order_release);
        return result;
      },
      std::move(launcher));
}

absl::StatusOr<c10::IValue> StaticRuntime::RunObserved(const std::vector<c10::IValue>& args,
                                                       const KwargMap& kwargs,
                                                       NodeObserver& observer) {
  if (state_->running_async.load(std::memory_order_acquire)) return StillRunningAsync();
  return RunWith(*state_, args, kwargs, PlanRunner{*state_, &observer}, &observer);
}

c10::IValue StaticRuntime::operator()(const std::vector<c10::IValue>& args,
                                      const KwargMap& kwargs) {
  TORCH_CHECK(!state_->running_async.load(std::memory_order_acquire),
              StillRunningAsync().message());
  absl::StatusOr<c10::IValue> result = Run(args, kwargs);  // sets last_exception
  return ValueOrThrow(std::move(result), state_->last_exception);
}

c10::IValue ValueOrThrow(absl::StatusOr<c10::IValue> result, std::exception_ptr node_exception) {
  if (result.ok()) return *std::move(result);
  if (node_exception != nullptr) std::rethrow_exception(node_exception);
  TORCH_CHECK(false, result.status().message());
}

const absl::Status& StaticRuntime::last_error() const { return state_->last_status; }
std::exception_ptr StaticRuntime::last_node_exception() const { return state_->last_exception; }

void StaticRuntime::ReleaseOutputs() {
  if (state_->output_buffer && state_->outputs_pending) {
    state_->output_buffer->Release(absl::MakeSpan(state_->values));
  }
  state_->outputs_pending = false;
}

const StaticModule& StaticRuntime::module() const { return *state_->module; }

size_t StaticRuntime::NumHeldValues() const {
  const RuntimeState& state = *state_;
  const ValueLayout& layout = state.module_state.layout;
  size_t held = 0;
  for (size_t i = 0; i < state.values.size(); ++i) {
    const bool constant = i >= layout.num_inputs() && i < layout.constants_end();
    const bool released = (state.planner && state.planner->IsReleased(state.values, i)) ||
                          (state.output_buffer && state.output_buffer->IsReleased(state.values, i));
    if (!constant && !released && !HoldsNothing(state.values[i])) ++held;
  }
  return held;
}

MemoryStats StaticRuntime::memory_stats() const {
  const RuntimeState& state = *state_;
  MemoryStats stats;
  if (state.planner) stats.intermediates = state.planner->stats();
  if (state.output_buffer) {
    stats.output_tensors = state.output_buffer->stats().managed_tensors;
    stats.output_buffer_bytes = state.output_buffer->stats().arena_bytes;
  }
  if (state.output_slab) {
    stats.output_slab_tensors = state.output_slab->tensors();
    stats.output_slab_bytes = state.output_slab->bytes();
  }
  const size_t produced = state.values.size() - state.module_state.layout.constants_end();
  stats.unmanaged_values = produced - stats.intermediates.managed_tensors - stats.output_tensors;
  return stats;
}

MemoryPlanDescription StaticRuntime::DescribeMemoryPlan() const {
  const RuntimeState& state = *state_;
  MemoryPlanDescription description;
  description.stats = memory_stats().intermediates;
  if (!state.planner) return description;
  const ModuleState& module_state = state.module_state;
  // Which op produces each slot of the top-level graph.
  absl::flat_hash_map<ValueIndex, std::string> producer;
  for (const torch::jit::Node* node : module_state.prepared.graph->nodes()) {
    for (const torch::jit::Value* output : node->outputs()) {
      producer[module_state.layout.SlotOf(output)] = node->kind().toUnqualString();
    }
  }
  const memory::Plan& plan = state.planner->plan();
  description.planned_bytes = plan.arena_bytes;
  const std::vector<memory::Lifetime>& lifetimes = state.planner->lifetimes();
  for (size_t i = 0; i < lifetimes.size() && i < plan.offsets.size(); ++i) {
    auto found = producer.find(module_state.managed_slots[i]);
    description.tensors.push_back({found == producer.end() ? "?" : found->second,
                                   lifetimes[i].first, lifetimes[i].last, plan.offsets[i],
                                   lifetimes[i].bytes});
  }
  return description;
}

}  // namespace static_runtime
