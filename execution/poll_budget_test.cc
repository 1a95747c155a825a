#include "execution/poll_budget.h"

#include "gtest/gtest.h"

namespace static_runtime {
namespace ops {
namespace {

constexpr absl::Duration kMaxSpin = absl::Milliseconds(2);

PollBudget AfterGaps(std::initializer_list<absl::Duration> gaps,
                     absl::Duration max_spin = kMaxSpin) {
  PollBudget budget(max_spin);
  for (absl::Duration gap : gaps) budget.Record(gap);
  return budget;
}

TEST(PollBudgetTest, DoesNotPollBeforeEnoughGapsAreKnown) {
  EXPECT_EQ(PollBudget(kMaxSpin).Budget(), absl::ZeroDuration());
  const absl::Duration short_gap = absl::Microseconds(10);
  EXPECT_EQ(AfterGaps({short_gap, short_gap, short_gap}).Budget(), absl::ZeroDuration());
  EXPECT_GT(AfterGaps({short_gap, short_gap, short_gap, short_gap}).Budget(), absl::ZeroDuration());
}

TEST(PollBudgetTest, NeverPollsWithoutMaxSpin) {
  const absl::Duration zero = absl::ZeroDuration();
  EXPECT_EQ(AfterGaps({zero, zero, zero, zero, zero}, zero).Budget(), zero);
}

// Back-to-back tasks (gaps of 40 to 50 us): polls twice the longest gap
// and a margin.
TEST(PollBudgetTest, PollsWhenTasksComeBackToBack) {
  const PollBudget budget =
      AfterGaps({absl::Microseconds(50), absl::Microseconds(40), absl::Microseconds(45),
                 absl::Microseconds(50), absl::Microseconds(40)});
  EXPECT_EQ(budget.longest_recent_gap(), absl::Microseconds(50));
  EXPECT_EQ(budget.Budget(), absl::Microseconds(120));
}

// 10, 100 and 300 calls per second (gaps of 100, 10 and 3 ms), also with
// two forks per call (a short gap between the two): never polls.
TEST(PollBudgetTest, SleepsWhenCallsComeSeldom) {
  for (absl::Duration gap :
       {absl::Milliseconds(100), absl::Milliseconds(10), absl::Milliseconds(3)}) {
    EXPECT_EQ(AfterGaps({gap, gap, gap, gap, gap}).Budget(), absl::ZeroDuration()) << gap;
    const absl::Duration fork = absl::Microseconds(30);
    EXPECT_EQ(AfterGaps({gap, fork, gap, fork, gap, fork}).Budget(), absl::ZeroDuration()) << gap;
  }
}

// One long gap stops the polling; four short ones start it again.
TEST(PollBudgetTest, OneLongGapStopsPolling) {
  PollBudget budget = AfterGaps({absl::Microseconds(30), absl::Microseconds(30),
                                 absl::Microseconds(30), absl::Microseconds(30)});
  EXPECT_GT(budget.Budget(), absl::ZeroDuration());
  budget.Record(absl::Seconds(1));
  for (int i = 0; i < 3; ++i) {
    budget.Record(absl::Microseconds(30));
    EXPECT_EQ(budget.Budget(), absl::ZeroDuration()) << i;
  }
  budget.Record(absl::Microseconds(30));
  EXPECT_GT(budget.Budget(), absl::ZeroDuration());
}

// Gaps a little under max_spin (a run interleaved with others, say) are
// polled across, for at most max_spin.
TEST(PollBudgetTest, PollsAcrossGapsUpToMaxSpinForAtMostMaxSpin) {
  const absl::Duration gap = absl::Microseconds(1800);
  EXPECT_EQ(AfterGaps({gap, gap, gap, gap}).Budget(), kMaxSpin);
}

}  // namespace
}  // namespace ops
}  // namespace static_runtime
