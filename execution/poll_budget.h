// PollBudget: how long an idle task worker (execution/task_workers.h) polls for
// its next task before it sleeps, learnt from the gaps between one task's
// end and the next one's arrival.
//
// Polling saves the wake-up of a sleeping thread (tens to hundreds of
// microseconds on a virtual machine) on every forked task, which matters
// when tasks come back to back (a server running a forked model call after
// call) and is pure waste when they come seldom (an idle or lightly loaded
// server would burn a core polling). So a worker polls only while every
// one of the last kRecentGaps gaps was at most `max_spin`, for twice the
// longest of them plus a margin, never more than `max_spin`; otherwise it
// sleeps at once. One long gap stops the polling; kRecentGaps short ones
// start it. Not thread-safe: the caller serializes Record and Budget.
#ifndef STATIC_RUNTIME_EXECUTION_POLL_BUDGET_H_
#define STATIC_RUNTIME_EXECUTION_POLL_BUDGET_H_

#include <array>

#include "absl/time/time.h"

namespace static_runtime {
namespace ops {

class PollBudget {
 public:
  static constexpr size_t kRecentGaps = 4;

  // Never polls for longer than `max_spin` (zero: never polls). Until
  // kRecentGaps gaps are recorded it does not poll.
  explicit PollBudget(absl::Duration max_spin);

  // A worker went idle and its next task arrived `gap` later.
  void Record(absl::Duration gap);

  // How long an idle worker polls now.
  absl::Duration Budget() const;

  // The longest of the last kRecentGaps gaps (longer than max_spin while
  // fewer were recorded).
  absl::Duration longest_recent_gap() const;

 private:
  const absl::Duration max_spin_;
  std::array<absl::Duration, kRecentGaps> recent_;
  size_t next_ = 0;  // the slot of recent_ the next gap overwrites
};

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_EXECUTION_POLL_BUDGET_H_
