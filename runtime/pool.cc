#include "runtime/pool.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <thread>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "ops/prim/native_async.h"
#include "runtime/runtime_state.h"

namespace static_runtime {

class RuntimePool::Runtimes {
 public:
  // Twice as many slots as runtimes (at most 256) keeps threads that share
  // one rare.
  explicit Runtimes(size_t max_runtimes) : slots_(std::clamp<size_t>(2 * max_runtimes, 4, 256)) {}
  ~Runtimes() {
    for (ThreadSlot& slot : slots_) delete slot.runtime.exchange(nullptr);
  }

  // The runtime this thread returned last when it is idle, else any idle
  // one; else, while fewer than `max_runtimes` were made, nullptr, counted as
  // made (the caller makes it, outside the lock); else waits for one.
  std::unique_ptr<StaticRuntime> TakeOrReserve(size_t max_runtimes) {
    if (StaticRuntime* mine = SlotOfThisThread().runtime.exchange(nullptr)) {
      return std::unique_ptr<StaticRuntime>(mine);
    }
    absl::MutexLock lock(&mutex_);
    // Announced before looking in the slots: a runtime put in one after
    // that look is taken back into idle_ by its releaser (Release).
    ++waiting_;
    while (true) {
      if (std::unique_ptr<StaticRuntime> idle = TakeIdle()) {
        --waiting_;
        return idle;
      }
      if (created_ < max_runtimes) break;
      auto returned = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return !idle_.empty(); };
      mutex_.Await(absl::Condition(&returned));
    }
    --waiting_;
    ++created_;
    return nullptr;
  }

  void Release(std::unique_ptr<StaticRuntime> runtime) {
    std::atomic<StaticRuntime*>& slot = SlotOfThisThread().runtime;
    StaticRuntime* expected = nullptr;
    if (slot.compare_exchange_strong(expected, runtime.get())) {
      static_cast<void>(runtime.release());  // the slot owns it now
      // A caller waiting may have looked in the slots before this runtime
      // was put there: hand it over through idle_ (unless a caller took it).
      if (waiting_.load() == 0) return;
      runtime.reset(slot.exchange(nullptr));
      if (runtime == nullptr) return;
    }
    absl::MutexLock lock(&mutex_);
    idle_.push_back({std::this_thread::get_id(), std::move(runtime)});
  }

  std::vector<MemoryStats> IdleMemoryStats() {
    absl::MutexLock lock(&mutex_);
    std::vector<MemoryStats> stats;
    for (const IdleRuntime& idle : idle_) stats.push_back(idle.runtime->memory_stats());
    for (ThreadSlot& slot : slots_) {
      // Taken out while it is read, so that its thread cannot run it
      // meanwhile.
      std::unique_ptr<StaticRuntime> runtime(slot.runtime.exchange(nullptr));
      if (runtime == nullptr) continue;
      stats.push_back(runtime->memory_stats());
      // Back in its slot, unless a caller waits (as Release hands it over)
      // or the slot's thread filled it meanwhile.
      StaticRuntime* empty = nullptr;
      if (waiting_.load() == 0 && slot.runtime.compare_exchange_strong(empty, runtime.get())) {
        static_cast<void>(runtime.release());
      } else {
        idle_.push_back({std::thread::id(), std::move(runtime)});
      }
    }
    return stats;
  }

  size_t created() const {
    absl::MutexLock lock(&mutex_);
    return created_;
  }

 private:
  struct IdleRuntime {
    std::thread::id last_thread;
    std::unique_ptr<StaticRuntime> runtime;
  };
  // The idle runtime a thread returned last, if it is still there.
  struct alignas(64) ThreadSlot {
    std::atomic<StaticRuntime*> runtime{nullptr};
  };

  ThreadSlot& SlotOfThisThread() {
    return slots_[std::hash<std::thread::id>()(std::this_thread::get_id()) % slots_.size()];
  }

  // An idle runtime from idle_ (the caller's last first) or from any
  // thread's slot; nullptr when there is none.
  std::unique_ptr<StaticRuntime> TakeIdle() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
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
    for (ThreadSlot& slot : slots_) {
      if (StaticRuntime* runtime = slot.runtime.exchange(nullptr)) {
        return std::unique_ptr<StaticRuntime>(runtime);
      }
    }
    return nullptr;
  }

  std::vector<ThreadSlot> slots_;
  // Callers in the slow path: a runtime returned while one waits goes to
  // idle_, under the mutex, which wakes it.
  std::atomic<int> waiting_{0};
  mutable absl::Mutex mutex_;
  std::vector<IdleRuntime> idle_ ABSL_GUARDED_BY(mutex_);
  size_t created_ ABSL_GUARDED_BY(mutex_) = 0;
};

RuntimePool::RuntimePool(StaticModule::Ptr module, size_t max_runtimes)
    : module_(std::move(module)),
      max_runtimes_(std::max<size_t>(max_runtimes, 1)),
      runtimes_(std::make_unique<Runtimes>(max_runtimes_)) {}

RuntimePool::~RuntimePool() = default;

absl::StatusOr<c10::IValue> RuntimePool::Run(const std::vector<c10::IValue>& args,
                                             const KwargMap& kwargs,
                                             std::exception_ptr* node_exception) {
  if (module_->options().manage_output_tensors) {
    return absl::FailedPreconditionError(
        "manage_output_tensors needs one StaticRuntime per caller, which releases its "
        "outputs; RuntimePool does not support it");
  }
  std::unique_ptr<StaticRuntime> runtime = runtimes_->TakeOrReserve(max_runtimes_);
  // Made outside the lock: another caller may return a runtime meanwhile.
  if (runtime == nullptr) runtime = std::make_unique<StaticRuntime>(module_);
  absl::StatusOr<c10::IValue> result = runtime->Run(args, kwargs);
  if (node_exception != nullptr) *node_exception = runtime->last_node_exception();
  runtimes_->Release(std::move(runtime));
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

std::vector<MemoryStats> RuntimePool::IdleRuntimesMemoryStats() {
  return runtimes_->IdleMemoryStats();
}

size_t RuntimePool::runtimes_created() const { return runtimes_->created(); }

}  // namespace static_runtime
