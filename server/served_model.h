// ServedModel: one model of the server, ready for requests: its signature,
// its engine (server/engine.h), and a bounded queue. Infer() validates the
// inputs in the caller's thread, then either runs the request there, when
// one of the model's `instances` is free (no thread hand-off: a request to an
// idle model costs its own run and nothing more), or queues it: a full
// queue (config.queue_size waiting) refuses it at once (kResourceExhausted),
// so memory stays bounded under any load; a request whose deadline passes,
// or whose client goes away, before it runs is dropped unrun
// (kDeadlineExceeded, kCancelled).
//
// With config.max_batch_size > 0, `instances` worker threads take the
// queued requests instead: every queued request of the same input shapes
// (but dimension 0) up to that many rows, waiting up to max_queue_delay_us
// for more, runs as one batch (inputs concatenated along dimension 0) and
// the outputs are split back.
//
// Stop() (and the destructor) refuses new requests and finishes the queued
// and running ones; it returns when they are done.
#ifndef STATIC_RUNTIME_SERVER_SERVED_MODEL_H_
#define STATIC_RUNTIME_SERVER_SERVED_MODEL_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "server/engine.h"
#include "server/model_config.h"
#include "server/model_metrics.h"
#include "server/model_signature.h"

namespace static_runtime {
namespace server {

class ServedModel {
 public:
  static absl::StatusOr<std::unique_ptr<ServedModel>> Make(std::string name,
                                                           std::unique_ptr<Engine> engine,
                                                           ModelConfig config);
  ~ServedModel();
  ServedModel(const ServedModel&) = delete;
  ServedModel& operator=(const ServedModel&) = delete;

  // The model's outputs for `inputs`. `cancelled`, if given, is polled
  // (in this thread) while the request waits, to drop it when the client
  // has gone away.
  absl::StatusOr<std::vector<NamedTensor>> Infer(std::vector<NamedTensor> inputs,
                                                 absl::Time deadline = absl::InfiniteFuture(),
                                                 const std::function<bool()>& cancelled = nullptr);

  void Stop();

  // Requests waiting for a worker.
  size_t queue_length() const;

  const std::string& name() const { return name_; }
  const ModelSignature& signature() const { return signature_; }
  const ModelConfig& config() const { return config_; }
  const ModelMetrics& metrics() const { return metrics_; }
  // What its engine holds in memory now, if it can tell.
  std::optional<ModelMemory> memory() const { return engine_->Memory(); }

 private:
  struct Request;

  ServedModel(std::string name, std::unique_ptr<Engine> engine, ModelConfig config,
              ModelSignature signature);
  // Runs config_.warmup's samples (see ModelConfig::warmup) on the engine,
  // uncounted in the metrics; the first failure names its sample.
  absl::Status WarmUp();
  absl::Status CheckBatchable(const std::vector<NamedTensor>& inputs, int64_t* rows,
                              std::string* shape_key) const;
  // Unbatched: waits for a free instance in the caller's thread, runs.
  absl::StatusOr<std::vector<NamedTensor>> RunInCaller(const std::vector<c10::IValue>& arguments,
                                                       absl::Time deadline,
                                                       const std::function<bool()>& cancelled);
  absl::Status Enqueue(const std::shared_ptr<Request>& request, absl::Time deadline);
  // Batched: waits for the workers to run `request`.
  absl::StatusOr<std::vector<NamedTensor>> Await(Request& request, absl::Time deadline,
                                                 const std::function<bool()>& cancelled);
  // For the workers: a request queued, or stopping.
  bool HasWork() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    return !queue_.empty() || stopping_;
  }
  void Work();
  // Under mutex_: the requests of the next run (waits for batch-mates).
  std::vector<std::shared_ptr<Request>> NextRun() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void Run(std::vector<std::shared_ptr<Request>> run);
  void RunBatch(const std::vector<std::shared_ptr<Request>>& run);

  const std::string name_;
  const ModelConfig config_;
  const ModelSignature signature_;
  const std::unique_ptr<Engine> engine_;
  ModelMetrics metrics_;

  mutable absl::Mutex mutex_;
  std::deque<std::shared_ptr<Request>> queue_ ABSL_GUARDED_BY(mutex_);
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  // Unbatched: requests running, and callers waiting for an instance.
  int running_ ABSL_GUARDED_BY(mutex_) = 0;
  int waiting_ ABSL_GUARDED_BY(mutex_) = 0;
  std::vector<std::thread> workers_;
};

}  // namespace server
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_SERVER_SERVED_MODEL_H_
