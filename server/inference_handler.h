// InferenceHandler: what both transports (gRPC, HTTP) do with a decoded
// request: find the ready model, run it (its queue, batching and deadline:
// server/served_model.h), keep the requested outputs, and tag every error
// and log line with the request's id (the client's, or one made here).
// Also the server's limits and identity, and the bearer-token check.
#ifndef STATIC_RUNTIME_SERVER_INFERENCE_HANDLER_H_
#define STATIC_RUNTIME_SERVER_INFERENCE_HANDLER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "server/model_repository.h"
#include "server/model_signature.h"

namespace static_runtime {
namespace server {

// What one request may hold; larger requests are refused before decoding.
struct ServerLimits {
  int64_t max_request_bytes = int64_t{64} << 20;
  int max_tensors = 256;
  int64_t max_elements = int64_t{1} << 26;  // per tensor
};

// TLS for a transport: PEM files of the server's certificate and key.
struct TlsFiles {
  std::string certificate;  // PEM files; both empty: no TLS
  std::string private_key;
  bool enabled() const { return !certificate.empty(); }
};

struct InferRequest {
  std::string model_name;
  std::string model_version;
  std::string id;  // empty: the handler makes one
  std::vector<NamedTensor> inputs;
  std::vector<std::string> requested_outputs;  // empty: every output
  absl::Time deadline = absl::InfiniteFuture();
  std::function<bool()> cancelled;  // polled while the request waits
};

struct InferResponse {
  std::string model_name;
  std::string model_version;
  std::string id;
  std::vector<NamedTensor> outputs;
};

class InferenceHandler {
 public:
  static constexpr char kServerName[] = "static_runtime";
  // The protocol extensions served (ServerMetadata's list).
  static const std::vector<std::string>& Extensions();

  InferenceHandler(ModelRepository& repository, ServerLimits limits, std::string token)
      : repository_(repository), limits_(limits), token_(std::move(token)) {}

  absl::StatusOr<InferResponse> Infer(InferRequest request);

  // `status` as the answer to request `id` (empty: one is made here) for
  // `model`, logged, its message starting "request <id>: ": Infer's own
  // errors, and the transports' before a request reaches Infer (decoding,
  // headers, limits).
  absl::Status Refuse(std::string id, absl::string_view model, const absl::Status& status);

  // Whether a request with this Authorization header may pass: always when
  // the server has no token, else only "Bearer <token>".
  bool Authorized(absl::string_view authorization) const;

  // Ready for inference: every model of the repository has been tried.
  bool Ready() const { return repository_.loaded_all() && !draining_.load(); }
  // Shutting down: not ready any more (requests in flight still finish).
  void Drain() { draining_.store(true); }

  ModelRepository& repository() { return repository_; }
  const ServerLimits& limits() const { return limits_; }

 private:
  // The client's id, or "sr-<n>" when it gave none.
  std::string IdOf(std::string id);

  ModelRepository& repository_;
  const ServerLimits limits_;
  const std::string token_;
  std::atomic<int64_t> next_id_{1};
  std::atomic<bool> draining_{false};
};

// The deadline `timeout_us` microseconds from now (none when <= 0), or
// `deadline` if that is earlier.
absl::Time DeadlineOf(int64_t timeout_us, absl::Time deadline);

}  // namespace server
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_SERVER_INFERENCE_HANDLER_H_
