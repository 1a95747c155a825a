#include "runtime/pool.h"

#include <algorithm>
#include <utility>

#include "ops/native_async.h"
#include "runtime/runtime_state.h"

namespace static_runtime {

RuntimePool::RuntimePool(StaticModule::Ptr module, size_t max_runtimes)
    : module_(std::move(module)), max_runtimes_(std::max<size_t>(max_runtimes, 1)) {}

std::unique_ptr<StaticRuntime> RuntimePool::Acquire() {
  {
    absl::MutexLock lock(&mutex_);
    auto available = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
      return !idle_.empty() || created_ < max_runtimes_;
    };
    mutex_.Await(absl::Condition(&available));
    if (!idle_.empty()) {
      const std::thread::id caller = std::this_thread::get_id();
      auto chosen = std::find_if(idle_.begin(), idle_.end(), [caller](const IdleRuntime& idle) {
        return idle.last_thread == caller;
      });
      if (chosen == idle_.end()) chosen = idle_.end() - 1;
      std::unique_ptr<StaticRuntime> runtime = std::move(chosen->runtime);
      idle_.erase(chosen);
      return runtime;
    }
    ++created_;
  }
  // Created outside the lock: another caller may return a runtime meanwhile.
  return std::make_unique<StaticRuntime>(module_);
}

void RuntimePool::Release(std::unique_ptr<StaticRuntime> runtime) {
  absl::MutexLock lock(&mutex_);
  idle_.push_back({std::this_thread::get_id(), std::move(runtime)});
}

absl::StatusOr<c10::IValue> RuntimePool::Run(const std::vector<c10::IValue>& args,
                                             const KwargMap& kwargs,
                                             std::exception_ptr* node_exception) {
  if (module_->options().manage_output_tensors) {
    return absl::FailedPreconditionError(
        "manage_output_tensors needs one StaticRuntime per caller, which releases its "
        "outputs; RuntimePool does not support it");
  }
  std::unique_ptr<StaticRuntime> runtime = Acquire();
  absl::StatusOr<c10::IValue> result = runtime->Run(args, kwargs);
  if (node_exception != nullptr) *node_exception = runtime->last_node_exception();
  Release(std::move(runtime));
  return result;
}

c10::IValue RuntimePool::operator()(const std::vector<c10::IValue>& args, const KwargMap& kwargs) {
  std::exception_ptr node_exception;
  absl::StatusOr<c10::IValue> result = Run(args, kwargs, &node_exception);
  return ValueOrThrow(std::move(result), node_exception);
}

c10::intrusive_ptr<c10::ivalue::Future> RuntimePool::RunAsync(std::vector<c10::IValue> args,
                                                              KwargMap kwargs,
                                                              TaskLauncher launcher) {
  return ops::RunAsTask(
      [this, args = std::move(args), kwargs = std::move(kwargs)] { return Run(args, kwargs); },
      std::move(launcher));
}

size_t RuntimePool::runtimes_created() const {
  absl::MutexLock lock(&mutex_);
  return created_;
}

}  // namespace static_runtime
