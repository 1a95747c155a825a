// `sr throughput`: a model called in process as a server would call it. `threads` callers share
// one RuntimePool and call it for `seconds`, back to back or at a fixed
// total rate (calls per second, spread evenly over the callers), with
// untimed warm-up calls first. Reports the calls per second reached, call
// latency, and the process's CPU time over the wall time (the cores it
// kept busy), next to the share of the wall time that calls were running:
// the difference is what the process burns outside calls (the task
// workers' polling, execution/task_workers.h), the cost of an idle server.
#ifndef STATIC_RUNTIME_TOOLS_SR_THROUGHPUT_H_
#define STATIC_RUNTIME_TOOLS_SR_THROUGHPUT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "ATen/core/ivalue.h"
#include "absl/status/statusor.h"
#include "runtime/static_module.h"
#include "tools/sr/latency.h"

namespace static_runtime {
namespace sr {

struct ThroughputConfig {
  int threads = 1;              // concurrent callers (>= 1)
  double calls_per_second = 0;  // all callers together; 0: back to back
  double seconds = 3;           // timed (> 0)
  int warmup = 20;              // untimed calls per caller first (>= 0)
};

struct ThroughputReport {
  int threads = 0;
  double target_calls_per_second = 0;  // 0: back to back
  int64_t calls = 0;                   // timed calls, all callers
  double wall_seconds = 0;
  double cpu_seconds = 0;  // the process's user + system time while timed
  // Of which the threads that run forked calls (execution/task_workers.h), polling
  // included (Linux; at the kernel's tick granularity).
  double task_worker_cpu_seconds = 0;
  double call_seconds = 0;  // the timed calls' latencies, summed
  Latency latency;          // of the timed calls (allocations not counted)

  double calls_per_second() const { return wall_seconds > 0 ? calls / wall_seconds : 0; }
  // Cores kept busy: CPU seconds per wall second.
  double cores() const { return wall_seconds > 0 ? cpu_seconds / wall_seconds : 0; }
  // Calls in flight on average: latency seconds per wall second.
  double in_calls() const { return wall_seconds > 0 ? call_seconds / wall_seconds : 0; }
};

absl::StatusOr<ThroughputReport> RunThroughput(const StaticModule::Ptr& module,
                                               const std::vector<c10::IValue>& args,
                                               const ThroughputConfig& config);

std::string FormatThroughputReport(const ThroughputReport& report);

}  // namespace sr
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_TOOLS_SR_THROUGHPUT_H_
