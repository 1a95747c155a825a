// Forked tasks (ops/prim/native_async.h) and the native kernel of aten::wait.
#include "ops/prim/native_async.h"

#include <atomic>
#include <list>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "ATen/ThreadLocalState.h"
#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "errors/exception_message.h"
#include "execution/task_workers.h"
#include "ops/core/registry.h"

namespace static_runtime {
namespace ops {
namespace {

thread_local const TaskLauncher* current_launcher = nullptr;

// One forked call; whichever thread claims it first runs it.
class ForkedTask {
 public:
  ForkedTask(c10::intrusive_ptr<c10::ivalue::Future> future,
             std::function<absl::StatusOr<c10::IValue>()> call)
      : future_(std::move(future)),
        call_(std::move(call)),
        launcher_(current_launcher != nullptr ? *current_launcher : TaskLauncher()),
        launched_by_(std::this_thread::get_id()) {}

  const c10::ivalue::Future* future() const { return future_.get(); }
  const TaskLauncher& launcher() const { return launcher_; }
  std::thread::id launched_by() const { return launched_by_; }

  // Runs the call unless another thread has claimed it.
  void RunOnce();

 private:
  std::atomic<bool> claimed_{false};
  const c10::intrusive_ptr<c10::ivalue::Future> future_;
  std::function<absl::StatusOr<c10::IValue>()> call_;
  const TaskLauncher launcher_;
  const std::thread::id launched_by_;
  const at::ThreadLocalState thread_state_;  // the launching thread's
};

// The tasks not started yet: by future, for a wait to claim its own, and by
// launching thread in launch order, for a wait to run its thread's own
// tasks newest first while the pool's threads take them oldest first (as
// work-stealing schedulers do: a thread that forked two calls and waits
// for the first runs the second while a pool thread runs the first, and
// never idles while one of its calls waits for a thread).
class PendingTasks {
 public:
  static PendingTasks& Global() {
    static auto* pending = new PendingTasks();
    return *pending;
  }
  void Add(const std::shared_ptr<ForkedTask>& task) {
    absl::MutexLock lock(&mutex_);
    std::list<std::shared_ptr<ForkedTask>>& launched = by_thread_[task->launched_by()];
    tasks_.emplace(task->future(), launched.insert(launched.end(), task));
  }
  void Remove(const ForkedTask& task) {
    absl::MutexLock lock(&mutex_);
    auto found = tasks_.find(task.future());
    if (found == tasks_.end()) return;
    auto launched = by_thread_.find(task.launched_by());
    launched->second.erase(found->second);
    if (launched->second.empty()) by_thread_.erase(launched);
    tasks_.erase(found);
  }
  std::shared_ptr<ForkedTask> Find(const c10::ivalue::Future* future) {
    absl::MutexLock lock(&mutex_);
    auto found = tasks_.find(future);
    return found == tasks_.end() ? nullptr : *found->second;
  }
  // The newest task this thread launched, if any is not started.
  std::shared_ptr<ForkedTask> NewestOfThisThread() {
    absl::MutexLock lock(&mutex_);
    auto launched = by_thread_.find(std::this_thread::get_id());
    return launched == by_thread_.end() ? nullptr : launched->second.back();
  }

 private:
  using Position = std::list<std::shared_ptr<ForkedTask>>::iterator;
  absl::Mutex mutex_;
  absl::flat_hash_map<const c10::ivalue::Future*, Position> tasks_ ABSL_GUARDED_BY(mutex_);
  absl::flat_hash_map<std::thread::id, std::list<std::shared_ptr<ForkedTask>>> by_thread_
      ABSL_GUARDED_BY(mutex_);
};

void ForkedTask::RunOnce() {
  if (claimed_.exchange(true)) return;
  PendingTasks::Global().Remove(*this);
  at::ThreadLocalStateGuard thread_state(thread_state_);
  ScopedTaskLauncher launcher(launcher_);
  std::function<absl::StatusOr<c10::IValue>()> call = std::move(call_);
  CompleteNow(future_, call);
}

void Wait(NodeIO& io) { io.Output(0) = WaitForked(io.Input(0).toFuture()); }

}  // namespace

void RegisterNativeAsyncKernels(KernelRegistry& registry) {
  registry.Add(Native("aten::wait", "", Wait));
}

ScopedTaskLauncher::ScopedTaskLauncher(TaskLauncher launcher)
    : launcher_(std::move(launcher)), previous_(current_launcher) {
  current_launcher = launcher_ ? &launcher_ : nullptr;
}

ScopedTaskLauncher::~ScopedTaskLauncher() { current_launcher = previous_; }

void LaunchForked(const c10::intrusive_ptr<c10::ivalue::Future>& future,
                  std::function<absl::StatusOr<c10::IValue>()> call) {
  auto task = std::make_shared<ForkedTask>(future, std::move(call));
  PendingTasks::Global().Add(task);
  std::function<void()> run = [task] { task->RunOnce(); };
  if (task->launcher()) {
    task->launcher()(std::move(run));
  } else {
    TaskWorkers::Default().Run(std::move(run));
  }
}

c10::intrusive_ptr<c10::ivalue::Future> RunAsTask(std::function<absl::StatusOr<c10::IValue>()> call,
                                                  TaskLauncher launcher) {
  auto future = c10::make_intrusive<c10::ivalue::Future>(c10::AnyType::get());
  ScopedTaskLauncher scoped(std::move(launcher));
  LaunchForked(future, std::move(call));
  return future;
}

void CompleteNow(const c10::intrusive_ptr<c10::ivalue::Future>& future,
                 const std::function<absl::StatusOr<c10::IValue>()>& call) {
  try {
    absl::StatusOr<c10::IValue> result = call();
    if (!result.ok()) throw StatusException(result.status());
    future->markCompleted(*std::move(result));
  } catch (...) {
    future->setError(std::current_exception());
  }
}

c10::IValue WaitForked(const c10::intrusive_ptr<c10::ivalue::Future>& future) {
  // The calls this thread forked that no thread has started, newest first
  // (the awaited one among them, if this thread forked it).
  while (!future->completed()) {
    std::shared_ptr<ForkedTask> task = PendingTasks::Global().NewestOfThisThread();
    if (task == nullptr) break;
    task->RunOnce();
  }
  // Forked by another thread and not started.
  if (!future->completed()) {
    if (std::shared_ptr<ForkedTask> task = PendingTasks::Global().Find(future.get())) {
      task->RunOnce();
    }
  }
  // Running on another thread: poll for a while before sleeping, as the
  // workers do while tasks come back to back (waking a sleeping thread
  // costs more than a short tower).
  const absl::Time deadline =
      absl::Now() +
      (TaskWorkers::Default().TasksComeOften() ? TaskWorkers::DefaultSpin() : absl::ZeroDuration());
  while (!future->completed() && absl::Now() < deadline) std::this_thread::yield();
  future->wait();
  return future->value();  // rethrows the call's error
}

}  // namespace ops
}  // namespace static_runtime
