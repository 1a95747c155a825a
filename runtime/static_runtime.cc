#include "runtime/static_runtime.h"

#include <chrono>
#include <utility>

#include "c10/core/InferenceMode.h"

namespace static_runtime {

StaticRuntime::StaticRuntime(StaticModule::Ptr module)
    : module_(std::move(module)), values_(module_->layout().num_slots()) {
  const ValueLayout& layout = module_->layout();
  for (size_t i = 0; i < layout.constants().size(); ++i) {
    values_[layout.num_inputs() + i] = layout.constants()[i];
  }
  if (!module_->managed_slots().empty()) {
    planner_.emplace(std::vector<uint32_t>(module_->managed_slots().begin(),
                                           module_->managed_slots().end()),
                     module_->managed_lifetimes(), module_->initial_records());
  }
  if (!module_->output_slots().empty()) {
    output_planner_.emplace(std::vector<uint32_t>(module_->output_slots().begin(),
                                                  module_->output_slots().end()),
                            module_->output_lifetimes(), std::vector<memory::TensorRecord>{},
                            /*handed_out=*/true);
  }
  for (size_t i = 0; i < values_.size(); ++i) {
    const bool constant = i >= layout.num_inputs() && i < layout.constants_end();
    const bool kept =
        (planner_ && planner_->IsManaged(i)) || (output_planner_ && output_planner_->IsManaged(i));
    if (!constant && !kept) cleared_slots_.push_back(static_cast<uint32_t>(i));
  }
}

MemoryStats StaticRuntime::memory_stats() const {
  MemoryStats stats;
  if (planner_) stats.intermediates = planner_->stats();
  if (output_planner_) {
    stats.output_tensors = output_planner_->stats().managed_tensors;
    stats.output_buffer_bytes = output_planner_->stats().arena_bytes;
  }
  const size_t produced = values_.size() - module_->layout().constants_end();
  stats.unmanaged_values =
      produced - stats.intermediates.managed_tensors - stats.output_tensors;
  return stats;
}

void StaticRuntime::ReleaseOutputs() {
  if (output_planner_ && outputs_pending_) output_planner_->Release(absl::MakeSpan(values_));
  outputs_pending_ = false;
}

void StaticRuntime::ClearNonConstants() {
  for (uint32_t slot : cleared_slots_) values_[slot] = c10::IValue();
}

size_t StaticRuntime::NumHeldValues() const {
  const ValueLayout& layout = module_->layout();
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
absl::StatusOr<c10::IValue> StaticRuntime::RunWith(const std::vector<c10::IValue>& args,
                                                   const KwargMap& kwargs, RunPlan run_plan,
                                                   NodeObserver* observer) {
  PhaseClock clock(observer);
  c10::InferenceMode inference_mode(module_->options().inference_mode);
  if (outputs_pending_) {
    return absl::FailedPreconditionError(
        "the outputs of the previous run live in the runtime's output buffer "
        "(manage_output_tensors): call ReleaseOutputs() before running again");
  }
  // The arguments go straight into the input slots.
  const c10::FunctionSchema& schema = module_->schema();
  absl::Status bound = BindArgumentsInto(schema, args, kwargs,
                                         absl::MakeSpan(values_.data(), schema.arguments().size()));
  if (!bound.ok()) {
    ClearNonConstants();
    return bound;
  }
  clock.Lap("bind");

  const BlockPlan& plan = module_->plan();
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

absl::StatusOr<c10::IValue> StaticRuntime::Run(const std::vector<c10::IValue>& args,
                                               const KwargMap& kwargs) {
  if (running_async_.load(std::memory_order_acquire)) return StillRunningAsync();
  return RunWith(args, kwargs, RunBlock, nullptr);
}

c10::intrusive_ptr<c10::ivalue::Future> StaticRuntime::RunAsync(std::vector<c10::IValue> args,
                                                                KwargMap kwargs,
                                                                ops::TaskLauncher launcher) {
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

absl::StatusOr<c10::IValue> StaticRuntime::RunObserved(const std::vector<c10::IValue>& args,
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
