#include "execution/task_workers.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "ATen/Parallel.h"
#include "absl/strings/numbers.h"
#include "c10/util/thread_name.h"

namespace static_runtime {
namespace ops {

absl::Duration TaskWorkers::DefaultSpin() {
  static const absl::Duration spin = [] {
    constexpr int64_t kDefaultSpinUs = 5000;
    int64_t spin_us = kDefaultSpinUs;
    if (const char* value = std::getenv("STATIC_RUNTIME_TASK_SPIN_US")) {
      if (!absl::SimpleAtoi(value, &spin_us) || spin_us < 0) spin_us = kDefaultSpinUs;
    }
    return absl::Microseconds(spin_us);
  }();
  return spin;
}

TaskWorkers& TaskWorkers::Default() {
  static auto* workers = new TaskWorkers(std::max(1, at::get_num_interop_threads()), DefaultSpin());
  return *workers;
}

TaskWorkers::TaskWorkers(int threads, absl::Duration max_spin) : poll_budget_(max_spin) {
  for (int i = 0; i < threads; ++i) {
    threads_.emplace_back([this] {
      c10::setThreadName("SRTaskWorker");
      at::init_num_threads();
      Work();
    });
  }
}

TaskWorkers::~TaskWorkers() {
  {
    absl::MutexLock lock(&mutex_);
    stopping_ = true;
    queued_.SignalAll();
  }
  for (std::thread& thread : threads_) thread.join();
}

void TaskWorkers::Run(std::function<void()> task) {
  absl::MutexLock lock(&mutex_);
  // The gap an idle worker would have polled across.
  if (tasks_.empty() && idle_ > 0) {
    poll_budget_.Record(absl::Now() - last_idle_);
    tasks_come_often_.store(poll_budget_.Budget() > absl::ZeroDuration(),
                            std::memory_order_relaxed);
  }
  tasks_.push_back(std::move(task));
  queued_count_.fetch_add(1);
  // A polling worker takes it; else wake one (Poll re-reads queued_count_ after
  // clearing polling_, so one of the two sides sees the other).
  if (!polling_.load() && sleeping_ > 0) queued_.Signal();
}

bool TaskWorkers::Poll(absl::Duration budget) {
  if (budget <= absl::ZeroDuration() || polling_.exchange(true)) return false;
  const absl::Time deadline = absl::Now() + budget;
  while (queued_count_.load() == 0 && !stopping_.load() && absl::Now() < deadline) {
    std::this_thread::yield();
  }
  polling_.store(false);
  return queued_count_.load() > 0;
}

void TaskWorkers::Work() {
  for (;;) {
    mutex_.Lock();
    if (tasks_.empty()) {
      ++idle_;
      last_idle_ = absl::Now();
      const absl::Duration budget = poll_budget_.Budget();
      mutex_.Unlock();
      const bool found = Poll(budget);
      mutex_.Lock();
      if (!found) {
        ++sleeping_;
        while (tasks_.empty() && !stopping_) queued_.Wait(&mutex_);
        --sleeping_;
      }
      --idle_;
    }
    if (tasks_.empty()) {  // another worker took it, or stopping
      mutex_.Unlock();
      if (stopping_) return;
      continue;
    }
    std::function<void()> task = std::move(tasks_.front());
    tasks_.pop_front();
    queued_count_.fetch_sub(1);
    if (!tasks_.empty() && !polling_.load() && sleeping_ > 0) queued_.Signal();
    mutex_.Unlock();
    task();
  }
}

}  // namespace ops
}  // namespace static_runtime
