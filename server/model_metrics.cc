#include "server/model_metrics.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace static_runtime {
namespace server {
namespace {

struct Family {
  const char* name;
  const char* type;
  const char* help;
};

// The families, in the order AppendSamples fills them.
constexpr Family kFamilies[] = {
    {"sr_request_success_total", "counter", "Inference requests answered with outputs."},
    {"sr_request_failure_total", "counter",
     "Inference requests that failed (bad input, model error, refused, expired)."},
    {"sr_request_rejected_total", "counter", "Requests refused because the queue was full."},
    {"sr_request_expired_total", "counter",
     "Requests dropped before running: deadline passed or client gone."},
    {"sr_queue_duration_us_total", "counter", "Microseconds requests waited in the queue."},
    {"sr_compute_duration_us_total", "counter", "Microseconds of model runs."},
    {"sr_batch_size", "histogram", "Requests per model run."},
    {"sr_arena_bytes", "gauge", "Bytes of the arenas of the model's runtimes not running a call."},
    {"sr_prepared_weight_bytes", "gauge", "Bytes of weights re-laid out for the model's kernels."},
    {"sr_shape_plans", "gauge",
     "Plans the model's kernels hold for input shapes (at most shape_plans_per_kernel per "
     "kernel cache)."},
};
// The families of ModelMemory's fields, after ModelMetrics' own.
constexpr size_t kMemoryFamilies = 3;

std::string Label(const std::string& model) {
  return absl::StrCat("model=\"",
                      absl::StrReplaceAll(model, {{"\\", "\\\\"}, {"\"", "\\\""}, {"\n", "\\n"}}),
                      "\"");
}

}  // namespace

void ModelMetrics::CountRun(int64_t requests, int64_t queue_us, int64_t compute_us) {
  runs_.fetch_add(1, std::memory_order_relaxed);
  run_requests_.fetch_add(requests, std::memory_order_relaxed);
  queue_us_.fetch_add(queue_us, std::memory_order_relaxed);
  compute_us_.fetch_add(compute_us, std::memory_order_relaxed);
  size_t bucket = 0;
  while (bucket < kBatchBuckets.size() && requests > kBatchBuckets[bucket]) ++bucket;
  batch_buckets_[bucket].fetch_add(1, std::memory_order_relaxed);
}

void ModelMetrics::AppendSamples(const std::string& model,
                                 std::vector<std::string>& families) const {
  const std::string label = Label(model);
  const int64_t counters[] = {success(),
                              failure(),
                              rejected(),
                              expired(),
                              queue_us_.load(std::memory_order_relaxed),
                              compute_us_.load(std::memory_order_relaxed)};
  for (size_t i = 0; i < std::size(counters); ++i) {
    absl::StrAppend(&families[i], kFamilies[i].name, "{", label, "} ", counters[i], "\n");
  }
  std::string& histogram = families[std::size(counters)];
  int64_t cumulative = 0;
  for (size_t bucket = 0; bucket < batch_buckets_.size(); ++bucket) {
    cumulative += batch_buckets_[bucket].load(std::memory_order_relaxed);
    const std::string le =
        bucket < kBatchBuckets.size() ? absl::StrCat(kBatchBuckets[bucket]) : "+Inf";
    absl::StrAppend(&histogram, "sr_batch_size_bucket{", label, ",le=\"", le, "\"} ", cumulative,
                    "\n");
  }
  absl::StrAppend(&histogram, "sr_batch_size_sum{", label, "} ",
                  run_requests_.load(std::memory_order_relaxed), "\n", "sr_batch_size_count{",
                  label, "} ", runs(), "\n");
}

std::string PrometheusText(const std::vector<ModelSamples>& models) {
  std::vector<std::string> families(std::size(kFamilies));
  const size_t first_memory_family = std::size(kFamilies) - kMemoryFamilies;
  for (const ModelSamples& model : models) {
    model.metrics->AppendSamples(model.name, families);
    if (!model.memory) continue;
    const size_t values[kMemoryFamilies] = {
        model.memory->arena_bytes, model.memory->prepared_weight_bytes, model.memory->shape_plans};
    for (size_t i = 0; i < kMemoryFamilies; ++i) {
      const Family& family = kFamilies[first_memory_family + i];
      absl::StrAppend(&families[first_memory_family + i], family.name, "{", Label(model.name), "} ",
                      values[i], "\n");
    }
  }
  std::string text;
  for (size_t i = 0; i < std::size(kFamilies); ++i) {
    absl::StrAppend(&text, "# HELP ", kFamilies[i].name, " ", kFamilies[i].help, "\n", "# TYPE ",
                    kFamilies[i].name, " ", kFamilies[i].type, "\n", families[i]);
  }
  return text;
}

}  // namespace server
}  // namespace static_runtime
