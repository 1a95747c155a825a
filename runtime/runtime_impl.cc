#include "runtime/runtime_impl.h"

#include <chrono>
#include <type_traits>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "c10/core/InferenceMode.h"
#include "ops/native_async.h"
#include "runtime/arguments.h"
#include "runtime/static_module.h"
#include "runtime/static_runtime.h"

namespace static_runtime {

static_assert(std::is_same_v<TaskLauncher, ops::TaskLauncher>);

RuntimeImpl& RuntimeImpl::Of(StaticRuntime& runtime) { return *runtime.impl_; }
const RuntimeImpl& RuntimeImpl::Of(const StaticRuntime& runtime) { return *runtime.impl_; }

RuntimeImpl::RuntimeImpl(std::shared_ptr<const StaticModule> module)
    : module_(std::move(module)),
      state_(ModuleState::Of(*module_)),
      values_(state_.layout.num_slots()) {
  const ValueLayout& layout = state_.layout;
  for (size_t i = 0; i < layout.constants().size(); ++i) {
    values_[layout.num_inputs() + i] = layout.constants()[i];
  }
  if (!state_.managed_slots.empty()) {
    planner_.emplace(
        std::vector<uint32_t>(state_.managed_slots.begin(), state_.managed_slots.end()),
        state_.managed_lifetimes, state_.initial_records);
  }
  if (!state_.output_slots.empty()) {
    output_planner_.emplace(
        std::vector<uint32_t>(state_.output_slots.begin(), state_.output_slots.end()),
        state_.output_lifetimes, std::vector<memory::TensorRecord>{},
        /*handed_out=*/true);
  }
  for (size_t i = 0; i < values_.size(); ++i) {
    const bool constant = i >= layout.num_inputs() && i < layout.constants_end();
    const bool kept =
        (planner_ && planner_->IsManaged(i)) || (output_planner_ && output_planner_->IsManaged(i));
    if (!constant && !kept) cleared_slots_.push_back(static_cast<uint32_t>(i));
  }
}

MemoryStats RuntimeImpl::memory_stats() const {
  MemoryStats stats;
  if (planner_) {
    stats.intermediates = planner_->stats();
  }
  if (output_planner_) {
    stats.output_tensors = output_planner_->stats().managed_tensors;
    stats.output_buffer_bytes = output_planner_->stats().arena_bytes;
  }
  const size_t produced = values_.size() - state_.layout.constants_end();
  stats.unmanaged_values = produced - stats.intermediates.managed_tensors - stats.output_tensors;
  return stats;
}

MemoryPlanDescription RuntimeImpl::DescribeMemoryPlan() const {
  MemoryPlanDescription description;
  description.stats = memory_stats().intermediates;
  if (!planner_) return description;
  // Which op produces each slot of the top-level graph.
  absl::flat_hash_map<ValueIndex, std::string> producer;
  for (const torch::jit::Node* node : state_.prepared.graph->nodes()) {
    for (const torch::jit::Value* output : node->outputs()) {
      producer[state_.layout.SlotOf(output)] = node->kind().toUnqualString();
    }
  }
  const memory::Plan& plan = planner_->plan();
  description.planned_bytes = plan.arena_bytes;
  const std::vector<memory::Lifetime>& lifetimes = planner_->lifetimes();
  for (size_t i = 0; i < lifetimes.size() && i < plan.offsets.size(); ++i) {
    auto found = producer.find(state_.managed_slots[i]);
    description.tensors.push_back({found == producer.end() ? "?" : found->second,
                                   lifetimes[i].first, lifetimes[i].last, plan.offsets[i],
                                   lifetimes[i].bytes});
  }
  return description;
}

void RuntimeImpl::ReleaseOutputs() {
  if (output_planner_ && outputs_pending_) output_planner_->Release(absl::MakeSpan(values_));
  outputs_pending_ = false;
}

void RuntimeImpl::ClearNonConstants() {
  for (uint32_t slot : cleared_slots_) values_[slot] = c10::IValue();
}

size_t RuntimeImpl::NumHeldValues() const {
  const ValueLayout& layout = state_.layout;
  size_t held = 0;
  for (size_t i = 0; i < values_.size(); ++i) {
    const bool constant = i >= layout.num_inputs() && i < layout.constants_end();
    const bool released = (planner_ && planner_->IsReleased(values_, i)) ||
                          (output_planner_ && output_planner_->IsReleased(values_, i));
    if (!constant && !released && !values_[i].isNone()) ++held;
  }
  return held;
}

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

}  // namespace

template <typename RunPlan>
absl::StatusOr<c10::IValue> RuntimeImpl::RunWith(const std::vector<c10::IValue>& args,
                                                 const KwargMap& kwargs, RunPlan run_plan,
                                                 NodeObserver* observer) {
  PhaseClock clock(observer);
  c10::InferenceMode inference_mode(state_.options.inference_mode);
  if (outputs_pending_) {
    return absl::FailedPreconditionError(
        "the outputs of the previous run live in the runtime's output buffer "
        "(manage_output_tensors): call ReleaseOutputs() before running again");
  }
  // The arguments go straight into the input slots.
  const c10::FunctionSchema& schema = state_.prepared.schema;
  absl::Status bound = BindArgumentsInto(schema, args, kwargs,
                                         absl::MakeSpan(values_.data(), schema.arguments().size()));
  if (!bound.ok()) {
    ClearNonConstants();
    return bound;
  }
  clock.Lap("bind");

  const BlockPlan& plan = state_.plan;
  if (planner_) planner_->Allocate(absl::MakeSpan(values_));
  if (output_planner_) output_planner_->Allocate(absl::MakeSpan(values_));
  clock.Lap("allocate");
  absl::Status status = run_plan(plan, values_.data());
  clock.Lap("nodes");
  c10::IValue result;
  if (status.ok()) {
    if (plan.outputs.size() == 1) {
      result = values_[plan.outputs[0]];
    } else {
      std::vector<c10::IValue> outputs;
      outputs.reserve(plan.outputs.size());
      for (ValueIndex slot : plan.outputs) outputs.push_back(values_[slot]);
      result = c10::ivalue::Tuple::create(std::move(outputs));
    }
  }
  if (planner_) planner_->Release(absl::MakeSpan(values_));
  clock.Lap("release");
  if (output_planner_) {
    if (status.ok()) {
      outputs_pending_ = true;
    } else {
      output_planner_->Release(absl::MakeSpan(values_));
    }
  }
  ClearNonConstants();
  if (!status.ok()) return status;
  return result;
}

namespace {

absl::Status StillRunningAsync() {
  return absl::FailedPreconditionError(
      "a RunAsync of this runtime has not completed: wait for its future before running again");
}

}  // namespace

absl::StatusOr<c10::IValue> RuntimeImpl::Run(const std::vector<c10::IValue>& args,
                                             const KwargMap& kwargs) {
  if (running_async_.load(std::memory_order_acquire)) return StillRunningAsync();
  return RunWith(args, kwargs, RunBlock, nullptr);
}

c10::intrusive_ptr<c10::ivalue::Future> RuntimeImpl::RunAsync(std::vector<c10::IValue> args,
                                                              KwargMap kwargs,
                                                              TaskLauncher launcher) {
  if (running_async_.exchange(true, std::memory_order_acq_rel)) {
    auto future = c10::make_intrusive<c10::ivalue::Future>(c10::AnyType::get());
    ops::CompleteNow(future, [] { return absl::StatusOr<c10::IValue>(StillRunningAsync()); });
    return future;
  }
  return ops::RunAsTask(
      [this, args = std::move(args), kwargs = std::move(kwargs)] {
        absl::StatusOr<c10::IValue> result = RunWith(args, kwargs, RunBlock, nullptr);
        running_async_.store(false, std::memory_order_release);
        return result;
      },
      std::move(launcher));
}

absl::StatusOr<c10::IValue> RuntimeImpl::RunObserved(const std::vector<c10::IValue>& args,
                                                     const KwargMap& kwargs,
                                                     NodeObserver& observer) {
  if (running_async_.load(std::memory_order_acquire)) return StillRunningAsync();
  return RunWith(
      args, kwargs,
      [&observer](const BlockPlan& plan, c10::IValue* values) {
        return RunBlockObserved(plan, values, observer);
      },
      &observer);
}

}  // namespace static_runtime
