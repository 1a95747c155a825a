#include "memory/plan.h"

#include <vector>

#include "gtest/gtest.h"
#include "rapidcheck.h"
#include "rapidcheck/gtest.h"

namespace static_runtime {
namespace memory {
namespace {

constexpr Algorithm kAlgorithms[] = {Algorithm::kStorageGroups, Algorithm::kGreedyBySize};

// Random lifetimes over up to 60 nodes, sizes up to 4 KiB (sometimes 0).
rc::Gen<std::vector<Lifetime>> Lifetimes() {
  return rc::gen::container<std::vector<Lifetime>>(rc::gen::exec([] {
    Lifetime lifetime;
    lifetime.first = *rc::gen::inRange<size_t>(0, 60);
    lifetime.last = lifetime.first + *rc::gen::inRange<size_t>(0, 20);
    lifetime.bytes = *rc::gen::weightedOneOf<size_t>(
        {{1, rc::gen::just<size_t>(0)}, {9, rc::gen::inRange<size_t>(1, 4096)}});
    return lifetime;
  }));
}

rc::Gen<size_t> Alignment() { return rc::gen::element<size_t>(1, 8, 16, 64, 128); }

RC_GTEST_PROP(PlanProperty, PlansAreValidAndBetweenTheBounds, ()) {
  const std::vector<Lifetime> lifetimes = *Lifetimes();
  const size_t alignment = *Alignment();
  size_t total = 0;
  for (const Lifetime& lifetime : lifetimes) total += AlignUp(lifetime.bytes, alignment);
  const size_t lower_bound = LowerBound(lifetimes, alignment);
  for (Algorithm algorithm : kAlgorithms) {
    const Plan plan = PlanMemory(algorithm, lifetimes, alignment);
    RC_ASSERT(CheckPlan(plan, lifetimes, alignment).ok());
    RC_ASSERT(plan.arena_bytes >= lower_bound);
    RC_ASSERT(plan.arena_bytes <= total);
  }
}

RC_GTEST_PROP(PlanProperty, PlanningIsDeterministic, ()) {
  const std::vector<Lifetime> lifetimes = *Lifetimes();
  const size_t alignment = *Alignment();
  for (Algorithm algorithm : kAlgorithms) {
    const Plan a = PlanMemory(algorithm, lifetimes, alignment);
    const Plan b = PlanMemory(algorithm, lifetimes, alignment);
    RC_ASSERT(a.offsets == b.offsets);
    RC_ASSERT(a.arena_bytes == b.arena_bytes);
  }
}

// The checker itself catches overlap: a plan putting everything at 0.
RC_GTEST_PROP(PlanProperty, CheckerRejectsOverlappingPlacements, ()) {
  const size_t bytes = *rc::gen::inRange<size_t>(1, 100);
  const std::vector<Lifetime> lifetimes = {{0, 2, bytes}, {1, 3, bytes}};
  RC_ASSERT(!CheckPlan({{0, 0}, 2 * bytes}, lifetimes, 1).ok());
}

// At the boundary: a tensor made by the node that last reads another (the
// node reads one while it writes the other) may not share its bytes; one
// made by the next node may.
TEST(PlanTest, CheckerAtTheBoundaryOfTwoLifetimes) {
  EXPECT_FALSE(CheckPlan({{0, 0}, 64}, {{0, 1, 64}, {1, 2, 64}}, 64).ok());
  EXPECT_TRUE(CheckPlan({{0, 0}, 64}, {{0, 1, 64}, {2, 3, 64}}, 64).ok());
  EXPECT_FALSE(CheckPlan({{0, 0}, 64}, {{1, 2, 64}, {0, 1, 64}}, 64).ok());
}

// Alloc/free order +0 +1 -0 +2 -1 -2 with sizes 100, 50, 80: 0 and 2 can
// share, 1 overlaps both.
TEST(PlanTest, SmallExampleOffsets) {
  const std::vector<Lifetime> lifetimes = {{0, 1, 100}, {1, 3, 50}, {2, 3, 80}};
  const Plan greedy = PlanMemory(Algorithm::kGreedyBySize, lifetimes, 1);
  EXPECT_EQ(greedy.offsets, (std::vector<size_t>{0, 100, 0}));
  EXPECT_EQ(greedy.arena_bytes, 150u);
  const Plan groups = PlanMemory(Algorithm::kStorageGroups, lifetimes, 1);
  EXPECT_EQ(groups.offsets, (std::vector<size_t>{0, 100, 0}));
  EXPECT_EQ(groups.arena_bytes, 150u);
  EXPECT_EQ(LowerBound(lifetimes, 1), 150u);
}

// Greedy fills a gap that storage groups cannot: +0 +1 +2 -0 -1 +3 (3 is
// small and fits where 0 was while 2 is alive), then 4 reuses space.
TEST(PlanTest, GreedyUsesGapsBetweenLiveTensors) {
  const std::vector<Lifetime> lifetimes = {
      {0, 1, 64}, {0, 1, 64}, {0, 4, 64}, {2, 4, 128}, {2, 3, 32}};
  const Plan greedy = PlanMemory(Algorithm::kGreedyBySize, lifetimes, 1);
  const Plan groups = PlanMemory(Algorithm::kStorageGroups, lifetimes, 1);
  EXPECT_TRUE(CheckPlan(greedy, lifetimes, 1).ok());
  EXPECT_EQ(greedy.arena_bytes, LowerBound(lifetimes, 1));  // 64 + 128 + 32
  EXPECT_GT(groups.arena_bytes, greedy.arena_bytes);
}

TEST(PlanTest, AlignmentRoundsOffsetsAndArena) {
  const std::vector<Lifetime> lifetimes = {{0, 0, 1}, {0, 0, 65}, {0, 0, 3}};
  const Plan plan = PlanMemory(Algorithm::kGreedyBySize, lifetimes, 64);
  EXPECT_TRUE(CheckPlan(plan, lifetimes, 64).ok());
  EXPECT_EQ(plan.arena_bytes, 256u);
}

}  // namespace
}  // namespace memory
}  // namespace static_runtime
