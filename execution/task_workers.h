// The threads that run forked tasks by default (ops/prim/native_async.h): a
// fixed set of workers (LibTorch's inter-op thread count) of which one,
// when idle and while tasks come back to back, polls for the next task for
// a short while before it sleeps.
//
// A forked tower of a model is short (tens to hundreds of microseconds)
// and the run that forks it waits for it, so the time a sleeping thread
// takes to wake (tens of microseconds on a virtual machine) is paid on
// every run; with at::launch's pool it cost a two-tower model a fifth of
// its run time. The polling worker picks a task up within a microsecond
// or so. Only one worker polls at a time, and it yields the core to any
// other runnable thread while it does, so idle workers do not take cores
// from the threads that run models. How long it polls is learnt from the
// gaps between tasks (execution/poll_budget.h): not at all when tasks come
// seldom (an idle or lightly loaded server), at most `max_spin`.
#ifndef STATIC_RUNTIME_EXECUTION_TASK_WORKERS_H_
#define STATIC_RUNTIME_EXECUTION_TASK_WORKERS_H_

#include <atomic>
#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "execution/poll_budget.h"

namespace static_runtime {
namespace ops {

class TaskWorkers {
 public:
  // The longest idle threads poll for their next task or a task's
  // completion before they sleep: 5 ms, or STATIC_RUNTIME_TASK_SPIN_US
  // microseconds (0: never poll).
  static absl::Duration DefaultSpin();

  // The process's workers: at::get_num_interop_threads() of them, polling
  // for at most DefaultSpin().
  static TaskWorkers& Default();

  // `threads` >= 1 workers that poll for at most `max_spin`.
  TaskWorkers(int threads, absl::Duration max_spin);
  // Runs the queued tasks, then stops the workers.
  ~TaskWorkers();
  TaskWorkers(const TaskWorkers&) = delete;
  TaskWorkers& operator=(const TaskWorkers&) = delete;

  // Queues `task`; a worker runs it. Tasks start in the order queued.
  void Run(std::function<void()> task);

  // Whether tasks come back to back, so that idle workers poll for them: a
  // thread waiting for a task's end polls only then too (otherwise it
  // would burn a core for every seldom call).
  bool TasksComeOften() const { return tasks_come_often_.load(std::memory_order_relaxed); }

 private:
  void Work();
  // Polls until a task is queued or `budget` passes; true if one is.
  bool Poll(absl::Duration budget);

  absl::Mutex mutex_;
  std::deque<std::function<void()>> tasks_ ABSL_GUARDED_BY(mutex_);
  int sleeping_ ABSL_GUARDED_BY(mutex_) = 0;      // workers waiting on queued_
  int idle_ ABSL_GUARDED_BY(mutex_) = 0;          // workers polling or sleeping
  absl::Time last_idle_ ABSL_GUARDED_BY(mutex_);  // when a worker last went idle
  PollBudget poll_budget_ ABSL_GUARDED_BY(mutex_);
  absl::CondVar queued_;
  std::atomic<int> queued_count_{0};           // tasks_.size(), read without the lock
  std::atomic<bool> polling_{false};           // one worker polls at a time
  std::atomic<bool> tasks_come_often_{false};  // poll_budget_ gives a budget
  std::atomic<bool> stopping_{false};
  std::vector<std::thread> threads_;
};

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_EXECUTION_TASK_WORKERS_H_
