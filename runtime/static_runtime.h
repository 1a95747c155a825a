// StaticRuntime: runs a StaticModule. One instance per thread (it owns the
// value table a run works in and is not thread-safe); for concurrent callers
// use RuntimePool. A run binds and type-checks the arguments (nothing runs if
// they are wrong), executes the plan, and hands the outputs to the caller;
// afterwards the runtime holds no reference to the inputs or to any
// intermediate value. A node that fails gives an error naming it, and the
// runtime stays usable.
#ifndef STATIC_RUNTIME_RUNTIME_STATIC_RUNTIME_H_
#define STATIC_RUNTIME_RUNTIME_STATIC_RUNTIME_H_

#include <exception>
#include <memory>
#include <vector>

#include "ATen/core/ivalue.h"
#include "absl/status/statusor.h"
#include "runtime/static_module.h"
#include "runtime/types.h"

namespace static_runtime {

struct RuntimeState;

class StaticRuntime {
 public:
  explicit StaticRuntime(StaticModule::Ptr module);
  ~StaticRuntime();
  StaticRuntime(const StaticRuntime&) = delete;
  StaticRuntime& operator=(const StaticRuntime&) = delete;

  // The model's result: its single output, or a tuple if the graph has
  // several.
  absl::StatusOr<c10::IValue> Run(const std::vector<c10::IValue>& args,
                                  const KwargMap& kwargs = KwargMap());

  // As PyTorch's StaticRuntime::operator(): the result, or the error
  // thrown. A failing node's exception is rethrown as the node threw it,
  // its type and what() unchanged (a c10::Error such as c10::IndexError,
  // std::out_of_range, the model's own raise as torch::jit::JITException);
  // which node failed, at which source line, is in last_error(). Errors found
  // before any node runs (arguments that do not fit the schema, outputs of
  // the previous run not released) are thrown as c10::Error with
  // last_error()'s message.
  c10::IValue operator()(const std::vector<c10::IValue>& args, const KwargMap& kwargs = KwargMap());

  // The Status of the last run (Run, RunObserved, operator(), RunAsync): OK if
  // it succeeded; for a node's error, the node, its source line, its inputs
  // and the exception's message.
  const absl::Status& last_error() const;
  // The exception the failing node of the last run threw, as thrown; null
  // if the last run succeeded or failed before or outside any node.
  std::exception_ptr last_node_exception() const;

  // With options().manage_output_tensors, output tensors live in a buffer the
  // runtime reuses: after using a run's outputs, the caller calls this, and
  // the tensors it holds become empty. Running again before is an error.
  void ReleaseOutputs();

  // Starts a run on `launcher` (at::launch, LibTorch's inter-op pool, when
  // null) and returns its future at once; the model's forked calls use the
  // same launcher. The future completes with the result, or with an error
  // whose message is the run's status message (future->tryRetrieveErrorMessage()).
  // The runtime must outlive the future's completion, and runs nothing else
  // until then (Run, RunObserved and RunAsync meanwhile are errors).
  c10::intrusive_ptr<c10::ivalue::Future> RunAsync(std::vector<c10::IValue> args,
                                                   KwargMap kwargs = KwargMap(),
                                                   TaskLauncher launcher = nullptr);

  // Run, reporting every kernel call to `observer` (for profiling).
  absl::StatusOr<c10::IValue> RunObserved(const std::vector<c10::IValue>& args,
                                          const KwargMap& kwargs, NodeObserver& observer);

  const StaticModule& module() const;

  // Slots other than constants that hold a value or memory; 0 between runs
  // (managed tensors stay in their slots, without memory, and the lists and
  // dicts nodes build stay, empty, for the next run).
  size_t NumHeldValues() const;

  MemoryStats memory_stats() const;
  // The memory plan of the last run's intermediates; empty (no tensors)
  // before the first run or without memory planning.
  MemoryPlanDescription DescribeMemoryPlan() const;

 private:
  friend struct RuntimeState;
  std::unique_ptr<RuntimeState> state_;
};

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_RUNTIME_STATIC_RUNTIME_H_
