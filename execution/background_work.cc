#include "execution/background_work.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <thread>
#include <utility>

#include "ATen/Parallel.h"
#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"

namespace static_runtime {
namespace {

// Ends the OpenMP worker threads the calling thread's parallel regions
// started (libgomp's omp_pause_resource_all frees the calling thread's pool
// and joins its threads). While they live, libgomp counts them with every
// other pool's threads, and where the count exceeds the CPUs it lets each
// pool spin only briefly before sleeping: on a 2-core VM with 2 intra-op
// threads, a caller's every parallel region then waited for its worker to
// wake (deeplabv3_mobilenet 2.3 ms at one thread, 4.1 ms at two, 48K
// context switches in 300 runs). Looked up rather than linked, and only
// under libgomp: another OpenMP runtime's pause may stop every thread's
// pool.
void EndThisThreadsOpenMpWorkers() {
  using PauseAll = int (*)(int);
  static const PauseAll pause_all = []() -> PauseAll {
    void* symbol = dlsym(RTLD_DEFAULT, "omp_pause_resource_all");
    Dl_info info;
    if (symbol == nullptr || dladdr(symbol, &info) == 0 || info.dli_fname == nullptr ||
        std::strstr(info.dli_fname, "libgomp") == nullptr) {
      return nullptr;
    }
    return reinterpret_cast<PauseAll>(symbol);
  }();
  constexpr int kOmpPauseSoft = 1;  // omp_pause_soft in omp.h
  if (pause_all != nullptr) pause_all(kOmpPauseSoft);
}

class BackgroundThread {
 public:
  // The process's one, started at the first task or by
  // StartBackgroundThread (and never destroyed: the
  // exit handler stops it).
  static BackgroundThread& Get() {
    static BackgroundThread* const thread = [] {
      auto* made = new BackgroundThread();
      std::atexit([] { Get().Stop(); });
      return made;
    }();
    return *thread;
  }

  // Whether it was ever started (WaitForBackgroundWork need not start it).
  static bool Started() { return started_.load(std::memory_order_acquire); }

  void Post(std::function<void()> task) {
    absl::MutexLock lock(&mutex_);
    if (stopping_) return;
    queue_.push_back(std::move(task));
  }

  void WaitUntilIdle() {
    absl::MutexLock lock(&mutex_);
    auto idle = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
      return (queue_.empty() && !running_) || stopping_;
    };
    mutex_.Await(absl::Condition(&idle));
  }

 private:
  // The thread's OpenMP thread count is set as ATen sets every thread's (the
  // process's intra-op count): oneDNN shapes a primitive's work for the
  // count of the thread that makes it, so a primitive made there with the
  // default (every core) ran 1.5x slower on a one-thread caller. Returns
  // once it is set: that initialization racing what the starting thread
  // does next with ATen and OpenMP (a model's load starts the thread)
  // corrupted the heap in 3 of 4 runs of //tools/sr:sr_cli_test.
  BackgroundThread() {
    absl::Notification initialized;
    std::thread([this, &initialized] {
      at::internal::lazy_init_num_threads();
      initialized.Notify();
      Work();
    }).detach();
    initialized.WaitForNotification();
    started_.store(true, std::memory_order_release);
  }

  void Work() {
    while (true) {
      std::function<void()> task;
      {
        absl::MutexLock lock(&mutex_);
        auto has_work = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
          return !queue_.empty() || stopping_;
        };
        mutex_.Await(absl::Condition(&has_work));
        if (stopping_) return;
        task = std::move(queue_.front());
        queue_.pop_front();
        running_ = true;
      }
      task();
      task = nullptr;  // what it kept is let go outside the lock
      bool idle;
      {
        absl::MutexLock lock(&mutex_);
        idle = queue_.empty();
      }
      // Idle for now: its OpenMP workers go (a later task starts them
      // again, here, off every caller's path).
      if (idle) EndThisThreadsOpenMpWorkers();
      absl::MutexLock lock(&mutex_);
      running_ = false;
    }
  }

  // Drops the tasks not started and waits for the running one.
  void Stop() {
    std::deque<std::function<void()>> dropped;
    absl::MutexLock lock(&mutex_);
    stopping_ = true;
    dropped.swap(queue_);
    auto finished = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return !running_; };
    mutex_.Await(absl::Condition(&finished));
  }

  static std::atomic<bool> started_;
  absl::Mutex mutex_;
  std::deque<std::function<void()>> queue_ ABSL_GUARDED_BY(mutex_);
  bool running_ ABSL_GUARDED_BY(mutex_) = false;
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
};

std::atomic<bool> BackgroundThread::started_{false};

}  // namespace

void PostBackgroundWork(std::function<void()> task) {
  BackgroundThread::Get().Post(std::move(task));
}

void StartBackgroundThread() { BackgroundThread::Get(); }

void WaitForBackgroundWork() {
  if (BackgroundThread::Started()) BackgroundThread::Get().WaitUntilIdle();
}

}  // namespace static_runtime
