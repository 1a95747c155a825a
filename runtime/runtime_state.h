// RuntimeState: what a StaticRuntime holds, in the form the runtime's own
// code reads (the value table, the memory planners of the intermediates and
// of the output buffer); StaticRuntime's methods (runtime/static_runtime.cc)
// work on it. Internal: not part of the API; tests reach it through
// RuntimeState::Of.
#ifndef STATIC_RUNTIME_RUNTIME_RUNTIME_STATE_H_
#define STATIC_RUNTIME_RUNTIME_RUNTIME_STATE_H_

#include <atomic>
#include <exception>
#include <memory>
#include <optional>
#include <vector>

#include "ATen/core/ivalue.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "memory/output_slab.h"
#include "memory/planner.h"
#include "runtime/module_state.h"

namespace static_runtime {

class StaticModule;
class StaticRuntime;

struct RuntimeState {
  // The value table of `module` with its constants in place, and its planners.
  explicit RuntimeState(std::shared_ptr<const StaticModule> module);

  static RuntimeState& Of(StaticRuntime& runtime);
  static const RuntimeState& Of(const StaticRuntime& runtime);

  // The memory planner, if the module plans memory; the output buffer's
  // planner, with manage_output_tensors.
  const memory::MemoryPlanner* memory_planner() const { return planner ? &*planner : nullptr; }
  const memory::MemoryPlanner* output_planner() const {
    return output_buffer ? &*output_buffer : nullptr;
  }

  std::shared_ptr<const StaticModule> module;
  const ModuleState& module_state;
  std::vector<c10::IValue> values;
  // The slots a run leaves empty: the inputs and every produced value that
  // no planner keeps, but the recycled containers (ModuleState::recycled_slots).
  std::vector<uint32_t> cleared_slots;
  std::optional<memory::MemoryPlanner> planner;        // the intermediates
  std::optional<memory::MemoryPlanner> output_buffer;  // manage_output_tensors
  std::optional<memory::OutputSlab> output_slab;       // group_output_allocations
  bool outputs_pending = false;
  // The last run's status, and the exception its failing node threw.
  absl::Status last_status;
  std::exception_ptr last_exception;
  std::atomic<bool> running_async{false};
};

// What the throwing calls (StaticRuntime::operator(), RuntimePool::operator())
// give for a run's `result`: its value, or the failing node's exception
// rethrown as thrown, or a c10::Error with the Status message for an error
// that no node threw.
c10::IValue ValueOrThrow(absl::StatusOr<c10::IValue> result, std::exception_ptr node_exception);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_RUNTIME_RUNTIME_STATE_H_
