// RuntimeImpl: what a StaticRuntime does (runtime/static_runtime.h says
// what), over the module's internal state: the value table, the memory
// planners of the intermediates and of the output buffer. Internal: the
// runtime's own code and tests reach it through RuntimeImpl::Of.
#ifndef STATIC_RUNTIME_RUNTIME_RUNTIME_IMPL_H_
#define STATIC_RUNTIME_RUNTIME_RUNTIME_IMPL_H_

#include <atomic>
#include <memory>
#include <optional>
#include <vector>

#include "ATen/core/ivalue.h"
#include "absl/status/statusor.h"
#include "memory/planner.h"
#include "runtime/block_runner.h"
#include "runtime/module_state.h"
#include "runtime/types.h"

namespace static_runtime {

class StaticRuntime;

class RuntimeImpl {
 public:
  static RuntimeImpl& Of(StaticRuntime& runtime);
  static const RuntimeImpl& Of(const StaticRuntime& runtime);

  explicit RuntimeImpl(std::shared_ptr<const StaticModule> module);

  // What StaticRuntime's methods of the same names do (runtime/static_runtime.h).
  absl::StatusOr<c10::IValue> Run(const std::vector<c10::IValue>& args,
                                  const KwargMap& kwargs = KwargMap());
  void ReleaseOutputs();
  c10::intrusive_ptr<c10::ivalue::Future> RunAsync(std::vector<c10::IValue> args,
                                                   KwargMap kwargs = KwargMap(),
                                                   TaskLauncher launcher = nullptr);
  absl::StatusOr<c10::IValue> RunObserved(const std::vector<c10::IValue>& args,
                                          const KwargMap& kwargs, NodeObserver& observer);
  size_t NumHeldValues() const;
  MemoryStats memory_stats() const;
  MemoryPlanDescription DescribeMemoryPlan() const;

  const std::shared_ptr<const StaticModule>& module() const { return module_; }

  // The memory planner, if the module plans memory; the output buffer's
  // planner, with manage_output_tensors.
  const memory::MemoryPlanner* memory_planner() const { return planner_ ? &*planner_ : nullptr; }
  const memory::MemoryPlanner* output_planner() const {
    return output_planner_ ? &*output_planner_ : nullptr;
  }

 private:
  template <typename RunPlan>
  absl::StatusOr<c10::IValue> RunWith(const std::vector<c10::IValue>& args, const KwargMap& kwargs,
                                      RunPlan run_plan, NodeObserver* observer);
  void ClearNonConstants();

  std::shared_ptr<const StaticModule> module_;
  const ModuleState& state_;
  std::vector<c10::IValue> values_;
  // The slots a run leaves empty: the inputs and every produced value that
  // no planner keeps.
  std::vector<uint32_t> cleared_slots_;
  std::optional<memory::MemoryPlanner> planner_;
  std::optional<memory::MemoryPlanner> output_planner_;
  bool outputs_pending_ = false;
  std::atomic<bool> running_async_{false};
};

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_RUNTIME_RUNTIME_IMPL_H_
