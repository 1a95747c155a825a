#include "execution/task_workers.h"

#include <atomic>
#include <thread>
#include <vector>

#include "absl/synchronization/blocking_counter.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace static_runtime {
namespace ops {
namespace {

// Every task queued from several threads runs exactly once, whether the
// workers poll (long spin), poll briefly and sleep in between, or never poll.
TEST(TaskWorkersTest, RunsEveryTaskOnceFromManyThreads) {
  for (absl::Duration spin : {absl::Seconds(1), absl::Microseconds(50), absl::ZeroDuration()}) {
    TaskWorkers workers(3, spin);
    constexpr int kThreads = 4;
    constexpr int kTasksPerThread = 500;
    std::vector<std::atomic<int>> runs(kThreads * kTasksPerThread);
    absl::BlockingCounter done(kThreads * kTasksPerThread);
    std::vector<std::thread> queuers;
    for (int t = 0; t < kThreads; ++t) {
      queuers.emplace_back([&, t] {
        for (int i = 0; i < kTasksPerThread; ++i) {
          workers.Run([&, index = t * kTasksPerThread + i] {
            runs[index].fetch_add(1);
            done.DecrementCount();
          });
          if (i % 50 == 0) absl::SleepFor(absl::Microseconds(200));  // let workers idle
        }
      });
    }
    for (std::thread& queuer : queuers) queuer.join();
    done.Wait();
    for (const std::atomic<int>& count : runs) EXPECT_EQ(count.load(), 1);
  }
}

// A task queued after every worker went to sleep still runs (the wake-up
// is not lost between the poller giving up and sleeping).
TEST(TaskWorkersTest, WakesSleepingWorkers) {
  TaskWorkers workers(2, absl::Microseconds(10));
  for (int round = 0; round < 200; ++round) {
    absl::Notification ran;
    workers.Run([&] { ran.Notify(); });
    EXPECT_TRUE(ran.WaitForNotificationWithTimeout(absl::Seconds(10))) << "round " << round;
    if (round % 20 == 0) absl::SleepFor(absl::Milliseconds(1));  // all asleep
  }
}

// One worker starts tasks in the order they were queued.
TEST(TaskWorkersTest, OneWorkerStartsTasksInOrder) {
  TaskWorkers workers(1, absl::Milliseconds(1));
  absl::Mutex mutex;
  std::vector<int> order;
  absl::BlockingCounter done(100);
  for (int i = 0; i < 100; ++i) {
    workers.Run([&, i] {
      {
        absl::MutexLock lock(&mutex);
        order.push_back(i);
      }
      done.DecrementCount();
    });
  }
  done.Wait();
  for (int i = 0; i < 100; ++i) EXPECT_EQ(order[i], i);
}

}  // namespace
}  // namespace ops
}  // namespace static_runtime
