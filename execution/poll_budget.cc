#include "execution/poll_budget.h"

#include <algorithm>

namespace static_runtime {
namespace ops {
namespace {

// Polling also covers gaps a little longer than the longest recent one.
constexpr absl::Duration kMargin = absl::Microseconds(20);

}  // namespace

PollBudget::PollBudget(absl::Duration max_spin) : max_spin_(max_spin) {
  recent_.fill(absl::InfiniteDuration());
}

void PollBudget::Record(absl::Duration gap) {
  recent_[next_] = std::max(gap, absl::ZeroDuration());
  next_ = (next_ + 1) % kRecentGaps;
}

absl::Duration PollBudget::longest_recent_gap() const {
  return *std::max_element(recent_.begin(), recent_.end());
}

absl::Duration PollBudget::Budget() const {
  const absl::Duration longest = longest_recent_gap();
  if (max_spin_ <= absl::ZeroDuration() || longest > max_spin_) return absl::ZeroDuration();
  return std::min(max_spin_, 2 * longest + kMargin);
}

}  // namespace ops
}  // namespace static_runtime
