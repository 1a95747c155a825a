#include "execution/kernel_caches.h"

#include <memory>
#include <utility>

#include "gtest/gtest.h"

namespace static_runtime {
namespace {

TEST(KernelCachesTest, CachesReportToTheInnermostScope) {
  auto outer = std::make_shared<KernelCacheAccount>(5);
  auto inner = std::make_shared<KernelCacheAccount>(2);
  {
    const KernelCacheScope outer_scope(outer);
    EXPECT_EQ(KernelCacheScope::Current(), outer);
    {
      const KernelCacheScope inner_scope(inner);
      EXPECT_EQ(KernelCacheScope::Current(), inner);
      EXPECT_EQ(KernelCacheScope::Current()->shape_plans_per_cache(), 2u);
    }
    EXPECT_EQ(KernelCacheScope::Current(), outer);
  }
  // Outside any scope: an account of its own each time, with the default.
  const std::shared_ptr<KernelCacheAccount> own = KernelCacheScope::Current();
  EXPECT_NE(own, outer);
  EXPECT_NE(own, KernelCacheScope::Current());
  EXPECT_EQ(own->shape_plans_per_cache(), kDefaultShapePlansPerCache);
}

TEST(KernelCachesTest, CountsPlansAndWeights) {
  KernelCacheAccount account(4);
  account.PlanMade();
  account.PlanMade();
  account.PlanMade();
  account.PlansEvicted(1);
  account.WeightPrepared(100);
  account.WeightPrepared(28);
  account.WeightDropped(100);
  KernelCacheStats stats = account.Stats();
  EXPECT_EQ(stats.shape_plans, 2u);
  EXPECT_EQ(stats.shape_plans_made, 3u);
  EXPECT_EQ(stats.shape_plans_evicted, 1u);
  EXPECT_EQ(stats.prepared_weight_bytes, 28u);
  EXPECT_EQ(stats.prepared_weights, 1u);
  account.PlansDropped(2);
  EXPECT_EQ(account.Stats().shape_plans, 0u);
  stats += stats;
  EXPECT_EQ(stats.shape_plans_made, 6u);
  EXPECT_EQ(stats.prepared_weight_bytes, 56u);
}

TEST(KernelCachesTest, AChargeLastsAsLongAsItsWeight) {
  auto account = std::make_shared<KernelCacheAccount>();
  {
    const KernelCacheScope scope(account);
    PreparedWeightCharge first(64);
    EXPECT_EQ(account->Stats().prepared_weight_bytes, 64u);
    PreparedWeightCharge moved(std::move(first));
    EXPECT_EQ(account->Stats().prepared_weight_bytes, 64u);
    PreparedWeightCharge second(16);
    EXPECT_EQ(account->Stats().prepared_weights, 2u);
    second = std::move(moved);  // the 16 bytes are gone, the 64 kept
    EXPECT_EQ(account->Stats().prepared_weight_bytes, 64u);
    EXPECT_EQ(account->Stats().prepared_weights, 1u);
  }
  EXPECT_EQ(account->Stats().prepared_weight_bytes, 0u);
  EXPECT_EQ(account->Stats().prepared_weights, 0u);
}

}  // namespace
}  // namespace static_runtime
