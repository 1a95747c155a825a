#include "tools/sr/latency.h"

#include <algorithm>

namespace static_runtime {
namespace sr {

Latency Summarize(std::vector<double> samples_us, double wall_us) {
  Latency latency;
  if (samples_us.empty()) return latency;
  std::sort(samples_us.begin(), samples_us.end());
  auto percentile = [&](double p) {
    const size_t index =
        std::min(samples_us.size() - 1, static_cast<size_t>(p * (samples_us.size() - 1) + 0.5));
    return samples_us[index];
  };
  latency.median_us = percentile(0.5);
  latency.p90_us = percentile(0.9);
  latency.p99_us = percentile(0.99);
  double sum = 0;
  for (double sample : samples_us) sum += sample;
  latency.mean_us = sum / samples_us.size();
  latency.throughput_per_s = wall_us > 0 ? samples_us.size() / (wall_us / 1e6) : 0;
  return latency;
}

}  // namespace sr
}  // namespace static_runtime
