// Forked tasks (ops/native_async.h) and the native kernels of prim::fork (on
// the JIT interpreter) and aten::wait.
#include "ops/native_async.h"

#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ATen/Parallel.h"
#include "ATen/ThreadLocalState.h"
#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "ops/registry.h"
#include "torch/csrc/jit/runtime/interpreter.h"

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
        launcher_(current_launcher != nullptr ? *current_launcher : TaskLauncher()) {}

  const c10::ivalue::Future* future() const { return future_.get(); }
  const TaskLauncher& launcher() const { return launcher_; }

  // Runs the call unless another thread has claimed it.
  void RunOnce();

 private:
  std::atomic<bool> claimed_{false};
  const c10::intrusive_ptr<c10::ivalue::Future> future_;
  std::function<absl::StatusOr<c10::IValue>()> call_;
  const TaskLauncher launcher_;
  const at::ThreadLocalState thread_state_;  // the launching thread's
};

// The tasks not run yet, by future, for waits to claim.
class PendingTasks {
 public:
  static PendingTasks& Global() {
    static auto* pending = new PendingTasks();
    return *pending;
  }
  void Add(const std::shared_ptr<ForkedTask>& task) {
    absl::MutexLock lock(&mutex_);
    tasks_.emplace(task->future(), task);
  }
  void Remove(const c10::ivalue::Future* future) {
    absl::MutexLock lock(&mutex_);
    tasks_.erase(future);
  }
  std::shared_ptr<ForkedTask> Find(const c10::ivalue::Future* future) {
    absl::MutexLock lock(&mutex_);
    auto found = tasks_.find(future);
    return found == tasks_.end() ? nullptr : found->second;
  }

 private:
  absl::Mutex mutex_;
  absl::flat_hash_map<const c10::ivalue::Future*, std::shared_ptr<ForkedTask>> tasks_
      ABSL_GUARDED_BY(mutex_);
};

void ForkedTask::RunOnce() {
  if (claimed_.exchange(true)) return;
  PendingTasks::Global().Remove(future_.get());
  at::ThreadLocalStateGuard thread_state(thread_state_);
  ScopedTaskLauncher launcher(launcher_);
  std::function<absl::StatusOr<c10::IValue>()> call = std::move(call_);
  try {
    absl::StatusOr<c10::IValue> result = call();
    if (!result.ok()) throw std::runtime_error(std::string(result.status().message()));
    future_->markCompleted(*std::move(result));
  } catch (...) {
    future_->setError(std::current_exception());
  }
}

Kernel Fork(const torch::jit::Node* node) {
  if (!node->hasAttribute(c10::attr::Subgraph)) return nullptr;
  const c10::TypePtr result_type =
      node->output()->type()->expectRef<c10::FutureType>().getElementType();
  auto code = std::make_shared<torch::jit::Code>(node->g(c10::attr::Subgraph), "forked call");
  return [code, result_type](NodeIO& io) {
    torch::jit::Stack stack;
    stack.reserve(io.num_inputs());
    for (size_t i = 0; i < io.num_inputs(); ++i) stack.push_back(io.Input(i));
    auto future = c10::make_intrusive<c10::ivalue::Future>(result_type);
    LaunchForked(future, [code, stack = std::move(stack)]() mutable -> absl::StatusOr<c10::IValue> {
      torch::jit::InterpreterState(*code).run(stack);
      return std::move(stack.back());
    });
    io.Output(0) = std::move(future);
  };
}

void Wait(NodeIO& io) { io.Output(0) = WaitForked(io.Input(0).toFuture()); }

const bool kRegistered = [] {
  RegisterNative("prim::fork", Fork);
  RegisterNative("aten::wait(Future(t) self) -> t", ForAnyNode(Wait));
  return true;
}();

}  // namespace

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
    at::launch(std::move(run));
  }
}

c10::IValue WaitForked(const c10::intrusive_ptr<c10::ivalue::Future>& future) {
  if (!future->completed()) {
    if (std::shared_ptr<ForkedTask> task = PendingTasks::Global().Find(future.get())) {
      task->RunOnce();
    }
  }
  future->wait();
  return future->value();  // rethrows the call's error
}

}  // namespace ops
}  // namespace static_runtime
