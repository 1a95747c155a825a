#include "execution/background_work.h"

#include <atomic>
#include <filesystem>
#include <iterator>
#include <thread>
#include <vector>

#include "ATen/ATen.h"
#include "ATen/Parallel.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"

namespace static_runtime {
namespace {

TEST(BackgroundWork, WaitReturnsBeforeNothingThatWasPostedAndTasksRunInOrder) {
  WaitForBackgroundWork();  // nothing posted yet: returns at once
  absl::Mutex mutex;
  std::vector<int> order;
  absl::Notification release;
  PostBackgroundWork([&] { release.WaitForNotification(); });
  for (int i = 0; i < 50; ++i) {
    PostBackgroundWork([&, i] {
      absl::MutexLock lock(&mutex);
      order.push_back(i);
    });
  }
  std::atomic<bool> waited{false};
  std::thread waiter([&] {
    WaitForBackgroundWork();
    waited = true;
  });
  // Held by the first task: the waiter cannot have returned.
  EXPECT_FALSE(waited.load());
  release.Notify();
  waiter.join();
  absl::MutexLock lock(&mutex);
  ASSERT_EQ(order.size(), 50u);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(order[i], i);
}

TEST(BackgroundWork, ATaskRunsOnAnotherThread) {
  std::thread::id ran_on;
  PostBackgroundWork([&] { ran_on = std::this_thread::get_id(); });
  WaitForBackgroundWork();
  EXPECT_NE(ran_on, std::this_thread::get_id());
}

int64_t ThreadsOfThisProcess() {
  return std::distance(std::filesystem::directory_iterator("/proc/self/task"),
                       std::filesystem::directory_iterator());
}

// A task's parallel region starts OpenMP workers on the background thread;
// they end when the thread falls idle, so that they do not count against
// the CPUs for the callers' pools (libgomp then lets pools spin only
// briefly). Fails if they stay.
TEST(BackgroundWork, OpenMpWorkersATaskStartedEndWhenTheThreadIsIdle) {
  PostBackgroundWork([] {});
  WaitForBackgroundWork();
  const int64_t before = ThreadsOfThisProcess();
  int64_t during = 0;
  PostBackgroundWork([&] {
    const int previous = at::get_num_threads();
    at::set_num_threads(2);
    // An elementwise op of 1M values: ATen splits it over its OpenMP team.
    at::Tensor product = at::ones({1 << 20}) * 3;
    during = ThreadsOfThisProcess();
    at::set_num_threads(previous);
  });
  WaitForBackgroundWork();
  ASSERT_GT(during, before) << "the task's op started no OpenMP worker";
  EXPECT_EQ(ThreadsOfThisProcess(), before);
}

}  // namespace
}  // namespace static_runtime
