// Latency: percentiles, mean and throughput of timed calls (sr bench and
// sr serve), and Summarize, which computes them from the calls' times.
#ifndef STATIC_RUNTIME_TOOLS_SR_LATENCY_H_
#define STATIC_RUNTIME_TOOLS_SR_LATENCY_H_

#include <vector>

namespace static_runtime {
namespace sr {

struct Latency {
  double median_us = 0;
  double p90_us = 0;
  double p99_us = 0;
  double mean_us = 0;
  double throughput_per_s = 0;  // all threads together
  // CPU allocations (LibTorch's CPU allocator) per timed call, and their
  // bytes; only measured with one caller thread (-1 otherwise).
  double allocations_per_run = -1;
  double allocated_bytes_per_run = -1;
};

// `samples_us`: the calls' times; `wall_us`: the wall time they took
// together (for throughput). The allocation fields are left at -1.
Latency Summarize(std::vector<double> samples_us, double wall_us);

}  // namespace sr
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_TOOLS_SR_LATENCY_H_
