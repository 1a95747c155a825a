// ServedModel: one model of the server, ready for requests: its signature,
// its engine (server/engine.h), and a bounded queue that `instances` worker
// threads take requests from. Infer() validates the
// inputs in the caller's thread, then queues the request: a full queue
// refuses it at once (kResourceExhausted), so memory stays bounded under
// any load; a request whose deadline passes, or whose client goes away,
// before a worker takes it is dropped unrun (kDeadlineExceeded,
// kCancelled). With config.max_batch_size > 0 a worker takes every queued
// request of the same input shapes (but dimension 0) up to that many rows,
// waiting up to max_queue_delay_us for more, runs them as one batch
// (inputs concatenated along dimension 0) and splits the outputs back.
// Stop() (and the destructor) refuses new requests and finishes the queued
// ones; it returns when the workers have exited.
#ifndef STATIC_RUNTIME_SERVER_SERVED_MODEL_H_
#define STATIC_RUNTIME_SERVER_SERVED_MODEL_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
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

 private:
  struct Request;

  ServedModel(std::string name, std::unique_ptr<Engine> engine, ModelConfig config,
              ModelSignature signature);
  absl::Status CheckBatchable(const std::vector<NamedTensor>& inputs, int64_t* rows,
                              std::string* shape_key) const;
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
  std::vector<std::thread> workers_;
};

}  // namespace server
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_SERVER_SERVED_MODEL_H_
