// ModelMetrics: one served model's counters (requests, failures, refusals,
// queue and compute time, batch sizes), updated by many threads without a
// lock, and the Prometheus text exposition of a set of them with each
// model's memory (arena, prepared weights, shape plans; served at
// /metrics; Debian packages no Prometheus client library for C++, and the
// format is a few lines of text).
#ifndef STATIC_RUNTIME_SERVER_MODEL_METRICS_H_
#define STATIC_RUNTIME_SERVER_MODEL_METRICS_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace static_runtime {
namespace server {

class ModelMetrics {
 public:
  // Upper bounds of the batch-size histogram's buckets (requests per run);
  // the last bucket is +Inf.
  static constexpr std::array<int64_t, 8> kBatchBuckets = {1, 2, 4, 8, 16, 32, 64, 128};

  void CountSuccess() { success_.fetch_add(1, std::memory_order_relaxed); }
  void CountFailure() { failure_.fetch_add(1, std::memory_order_relaxed); }
  // Refused because the queue was full.
  void CountRejected() { rejected_.fetch_add(1, std::memory_order_relaxed); }
  // Dropped before running: deadline passed or the client went away.
  void CountExpired() { expired_.fetch_add(1, std::memory_order_relaxed); }
  // One run of `requests` requests that waited `queue_us` in all and took
  // `compute_us`.
  void CountRun(int64_t requests, int64_t queue_us, int64_t compute_us);

  int64_t success() const { return success_.load(std::memory_order_relaxed); }
  int64_t failure() const { return failure_.load(std::memory_order_relaxed); }
  int64_t rejected() const { return rejected_.load(std::memory_order_relaxed); }
  int64_t expired() const { return expired_.load(std::memory_order_relaxed); }
  int64_t runs() const { return runs_.load(std::memory_order_relaxed); }

  // Appends this model's samples to the families of `text` (see
  // PrometheusText).
  void AppendSamples(const std::string& model, std::vector<std::string>& families) const;

 private:
  std::atomic<int64_t> success_{0};
  std::atomic<int64_t> failure_{0};
  std::atomic<int64_t> rejected_{0};
  std::atomic<int64_t> expired_{0};
  std::atomic<int64_t> runs_{0};
  std::atomic<int64_t> run_requests_{0};
  std::atomic<int64_t> queue_us_{0};
  std::atomic<int64_t> compute_us_{0};
  std::array<std::atomic<int64_t>, kBatchBuckets.size() + 1> batch_buckets_{};
};

// What a served model holds in memory, read when /metrics is asked for.
struct ModelMemory {
  size_t arena_bytes = 0;            // the arenas of its runtimes not running a call
  size_t prepared_weight_bytes = 0;  // weights re-laid out for its kernels
  size_t shape_plans = 0;            // plans its kernels hold for input shapes
};

// One model's samples: its counters, and its memory where its engine
// reports it (the static runtime's; the JIT's does not).
struct ModelSamples {
  std::string name;
  const ModelMetrics* metrics;
  std::optional<ModelMemory> memory;
};

// The Prometheus text format (version 0.0.4) of every model's metrics.
std::string PrometheusText(const std::vector<ModelSamples>& models);

}  // namespace server
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_SERVER_MODEL_METRICS_H_
