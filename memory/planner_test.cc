// The planner's poisoning mode: recycled arena memory holds the 0xFF pattern
// from the first node after a tensor's last use until the tensor that takes
// its bytes is made (under ASan: poisoned for it), and a tensor's bytes are
// untouched while it lives. And a slot holding a tensor whose storage
// something else holds is let go, not recycled; and the freed heap is given
// back when the arena grows.
#include "memory/planner.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "ATen/ATen.h"
#include "absl/types/span.h"
#include "gtest/gtest.h"
#include "memory/heap_release.h"
#include "sanitizer/asan_interface.h"

#if defined(__SANITIZE_ADDRESS__)
#define STATIC_RUNTIME_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STATIC_RUNTIME_ASAN 1
#endif
#endif

namespace static_runtime {
namespace memory {
namespace {

#ifdef STATIC_RUNTIME_ASAN
constexpr bool kAsan = true;
#else
constexpr bool kAsan = false;
#endif

// Whether `tensor`'s storage is poisoned: under ASan, for ASan (reading it
// would be reported), else every byte is the pattern.
bool Poisoned(const at::Tensor& tensor) {
  auto* bytes = static_cast<uint8_t*>(tensor.storage().data());
#ifdef STATIC_RUNTIME_ASAN
  return __asan_region_is_poisoned(bytes, tensor.storage().nbytes()) == bytes;
#else
  for (size_t i = 0; i < tensor.storage().nbytes(); ++i) {
    if (bytes[i] != 0xFF) return false;
  }
  return true;
#endif
}

// Three float tensors of 16 elements: a (nodes 0-1) and c (nodes 3-4) can
// share memory, b (nodes 1-3) overlaps both.
class PoisoningTest : public ::testing::Test {
 protected:
  PoisoningTest()
      : planner_({0, 1, 2}, {{0, 1, 0}, {1, 3, 0}, {3, 4, 0}},
                 std::vector<TensorRecord>(3, {16 * sizeof(float), at::kFloat})),
        values_(3) {
    planner_.EnablePoisoning();
  }
  at::Tensor& Tensor(int i) { return values_[i].toTensor(); }

  MemoryPlanner planner_;
  std::vector<c10::IValue> values_;
};

TEST_F(PoisoningTest, RecycledBytesHoldThePatternUntilTheirNextTensorIsMade) {
  planner_.Allocate(absl::MakeSpan(values_));
  ASSERT_EQ(Tensor(0).storage().data(), Tensor(2).storage().data()) << "a and c share memory";
  // Before anything runs, the whole arena is poisoned.
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(Poisoned(Tensor(i))) << i;
  planner_.BeforeNode(0);  // a is made
  Tensor(0).resize_({16}).fill_(1.0f);
  planner_.BeforeNode(1);  // b is made; a is read for the last time
  Tensor(1).resize_({16}).fill_(2.0f);
  EXPECT_TRUE(Tensor(0).equal(at::full({16}, 1.0f))) << "a lives until node 1 has run";
  planner_.BeforeNode(2);  // after a's last use: its bytes are recycled
  EXPECT_TRUE(Poisoned(Tensor(0)));
  if (!kAsan) {
    EXPECT_TRUE(Tensor(0).isnan().all().item<bool>()) << "a use after recycling reads NaN";
  }
  EXPECT_TRUE(Tensor(1).equal(at::full({16}, 2.0f))) << "b is untouched";
  planner_.BeforeNode(3);  // c is made in a's bytes
  Tensor(2).resize_({16}).fill_(3.0f);
  planner_.BeforeNode(4);
  EXPECT_TRUE(Poisoned(Tensor(1))) << "b died at node 3";
  EXPECT_TRUE(Tensor(2).equal(at::full({16}, 3.0f)));
  // Released: everything is poisoned again and no tensor points there.
  planner_.Release(absl::MakeSpan(values_));
  planner_.Allocate(absl::MakeSpan(values_));
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(Poisoned(Tensor(i))) << i;
  planner_.Release(absl::MakeSpan(values_));
}

TEST(PlannerTest, WithoutPoisoningRecycledBytesAreLeftAsTheyAre) {
  MemoryPlanner planner({0, 1}, {{0, 0, 0}, {1, 1, 0}},
                        std::vector<TensorRecord>(2, {4 * sizeof(float), at::kFloat}));
  std::vector<c10::IValue> values(2);
  planner.Allocate(absl::MakeSpan(values));
  values[0].toTensor().resize_({4}).fill_(5.0f);
  planner.BeforeNode(1);
  EXPECT_TRUE(values[0].toTensor().equal(at::full({4}, 5.0f)));
  planner.Release(absl::MakeSpan(values));
}

TEST(PlannerTest, ATensorWhoseStorageSomethingElseHoldsIsDroppedNotRecycled) {
  MemoryPlanner planner({0}, {{0, 1, 0}}, {{4 * sizeof(float), at::kFloat}});
  std::vector<c10::IValue> values(1);
  planner.Allocate(absl::MakeSpan(values));
  ASSERT_TRUE(planner.InArena(values[0].toTensor().storage().data()));
  // A kernel put a view of a tensor that something else (a cache, the
  // caller) holds into the slot, in place of the planned tensor.
  const at::Tensor held = at::full({4}, 7.0f);
  values[0] = held.view({2, 2});
  planner.Release(absl::MakeSpan(values));
  EXPECT_TRUE(values[0].isNone()) << "the slot lets go of the view";
  ASSERT_NE(held.storage().data(), nullptr) << "the holder's storage was taken from it";
  EXPECT_TRUE(held.equal(at::full({4}, 7.0f)));
  // The next run's tensor is the arena's again, not the holder's memory.
  planner.Allocate(absl::MakeSpan(values));
  EXPECT_TRUE(planner.InArena(values[0].toTensor().storage().data()));
  EXPECT_TRUE(held.equal(at::full({4}, 7.0f)));
  planner.Release(absl::MakeSpan(values));
}

// With ReleaseFreedHeapWhenGrowing, the freed heap goes back to the system
// each time the arena grows (after a run whose tensor outgrew it) to
// kReleaseFromArenaBytes or more, and only then; without, never.
TEST(PlannerTest, FreedHeapIsReleasedWhenTheArenaGrows) {
  constexpr int64_t kLarge = MemoryPlanner::kReleaseFromArenaBytes / sizeof(float);
  for (const bool release : {false, true}) {
    SCOPED_TRACE(release);
    MemoryPlanner planner({0}, {{0, 1, 0}}, {{4 * sizeof(float), at::kFloat}});
    if (release) planner.ReleaseFreedHeapWhenGrowing(ReleaseFreedHeap);
    std::vector<c10::IValue> values(1);
    const auto run = [&](int64_t floats) {
      planner.Allocate(absl::MakeSpan(values));
      values[0].toTensor().resize_({floats}).fill_(1.0f);
      planner.Release(absl::MakeSpan(values));
    };
    const uint64_t before = FreedHeapReleases();
    run(4);
    run(4);
    EXPECT_EQ(FreedHeapReleases(), before) << "a small arena: its freed chunks left to malloc";
    run(kLarge / 2);  // outgrows it: ordinary memory, freed after the run
    run(kLarge / 2);
    EXPECT_EQ(FreedHeapReleases(), before) << "an arena below kReleaseFromArenaBytes";
    run(kLarge);
    EXPECT_EQ(FreedHeapReleases(), before);
    run(kLarge);  // the large arena
    EXPECT_EQ(FreedHeapReleases(), before + (release ? 1 : 0));
    run(4);
    run(kLarge);
    EXPECT_EQ(FreedHeapReleases(), before + (release ? 1 : 0)) << "no growth, no release";
    run(2 * kLarge);
    run(2 * kLarge);
    EXPECT_EQ(FreedHeapReleases(), before + (release ? 2 : 0)) << "a larger arena";
  }
}

}  // namespace
}  // namespace memory
}  // namespace static_runtime
