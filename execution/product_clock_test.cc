#include "execution/product_clock.h"

#include <thread>

#include "gtest/gtest.h"

namespace static_runtime {
namespace ops {
namespace {

TEST(ProductClockTest, CountsNothingWhileOff) {
  CountProducts(false);
  { const ProductScope product(1, 4, 5, 6); }
  const ProductWork work = TakeProductWork();
  EXPECT_EQ(work.flops, 0);
  EXPECT_EQ(work.seconds, 0);
}

TEST(ProductClockTest, CountsOperationsAndTimeOfEachScope) {
  CountProducts(true);
  { const ProductScope product(1, 4, 5, 6); }
  {
    const ProductScope product(3, 2, 7, 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  const ProductWork work = TakeProductWork();
  EXPECT_DOUBLE_EQ(work.flops, 2.0 * 4 * 5 * 6 + 2.0 * 3 * 2 * 7 * 1);
  EXPECT_GE(work.seconds, 0.002);
  // Taking restarts the count.
  EXPECT_EQ(TakeProductWork().flops, 0);
  CountProducts(false);
}

TEST(ProductClockTest, CountsPerThread) {
  CountProducts(true);
  std::thread([] { const ProductScope product(1, 8, 8, 8); }).join();
  EXPECT_EQ(TakeProductWork().flops, 0);
  CountProducts(false);
}

TEST(ProductClockTest, TurningOnRestartsTheCount) {
  CountProducts(true);
  { const ProductScope product(1, 2, 2, 2); }
  CountProducts(true);
  EXPECT_EQ(TakeProductWork().flops, 0);
  CountProducts(false);
}

}  // namespace
}  // namespace ops
}  // namespace static_runtime
