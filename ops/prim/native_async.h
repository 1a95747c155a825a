// Asynchronous calls: how a forked call (prim::fork) runs and how aten::wait
// gets its value.
//
// A forked call runs as a task on a TaskLauncher: the one a
// ScopedTaskLauncher installed on the launching thread, else the process's
// TaskWorkers (execution/task_workers.h: as many threads as LibTorch's inter-op
// pool, one of them polling for tasks while idle). The task runs under the launching
// thread's thread-local state (grad and inference mode, ...) and the same
// launcher (so the call's own forks use it too), and completes the call's
// future with the value or the exception. aten::wait blocks on the future,
// but first runs, newest first, the tasks its thread launched that no
// thread has started (the pool's threads take them oldest first), and the
// awaited task itself if another thread launched it and none has started
// it: nested forks cannot deadlock a small pool by waiting for tasks
// queued behind them, a call waited for at once costs no thread switch,
// and the waiting thread shares its calls with the pool.
//
// The runtime's prim::fork kernels (runtime/forked_call.h) launch through
// LaunchForked, or, when forks run serially, call CompleteNow; aten::wait's
// kernel is registered here.
#ifndef STATIC_RUNTIME_OPS_PRIM_NATIVE_ASYNC_H_
#define STATIC_RUNTIME_OPS_PRIM_NATIVE_ASYNC_H_

#include <functional>

#include "ATen/core/ivalue.h"
#include "absl/status/statusor.h"

namespace static_runtime {
namespace ops {

// Runs a task, now or later, on some thread; it must run every task once.
using TaskLauncher = std::function<void(std::function<void()>)>;

// Makes `launcher` (TaskWorkers::Default() when null) the one forked calls launched on
// this thread use, until destroyed.
class ScopedTaskLauncher {
 public:
  explicit ScopedTaskLauncher(TaskLauncher launcher);
  ~ScopedTaskLauncher();
  ScopedTaskLauncher(const ScopedTaskLauncher&) = delete;
  ScopedTaskLauncher& operator=(const ScopedTaskLauncher&) = delete;

 private:
  TaskLauncher launcher_;
  const TaskLauncher* previous_;
};

// Launches `call` as a forked task that completes `future` (see above): with
// its value, or with an error holding its status's message or the
// exception it throws.
void LaunchForked(const c10::intrusive_ptr<c10::ivalue::Future>& future,
                  std::function<absl::StatusOr<c10::IValue>()> call);

// A future of `call` run as a forked task on `launcher` (TaskWorkers when
// null): what RunAsync of a runtime, a pool or a StaticMethod returns.
c10::intrusive_ptr<c10::ivalue::Future> RunAsTask(std::function<absl::StatusOr<c10::IValue>()> call,
                                                  TaskLauncher launcher);

// Runs `call` on this thread now and completes `future` as LaunchForked's
// task does.
void CompleteNow(const c10::intrusive_ptr<c10::ivalue::Future>& future,
                 const std::function<absl::StatusOr<c10::IValue>()>& call);

// Blocks until `future` completes, first running its forked task on this
// thread if no thread has started it; then its value (or its error,
// rethrown).
c10::IValue WaitForked(const c10::intrusive_ptr<c10::ivalue::Future>& future);

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_PRIM_NATIVE_ASYNC_H_
