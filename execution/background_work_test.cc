#include "execution/background_work.h"

#include <atomic>
#include <thread>
#include <vector>

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

}  // namespace
}  // namespace static_runtime
