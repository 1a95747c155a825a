// HttpFrontend: the Open Inference Protocol's HTTP/REST transport over an
// InferenceHandler, with cpp-httplib: health, server and model metadata,
// inference with JSON tensors and the binary tensor data extension
// (Inference-Header-Content-Length), deadlines (Inference-Timeout-Us or the
// "timeout" parameter), the model-repository extension, and
// /metrics (Prometheus text). Errors are {"error": "..."} with the status
// their code maps to (400 bad input, 401 no token, 404 no such model, 429
// queue full, 503 not ready, 504 deadline). With a token, every endpoint
// but /v2/health/* needs "Authorization: Bearer <token>".
#ifndef STATIC_RUNTIME_SERVER_HTTP_FRONTEND_H_
#define STATIC_RUNTIME_SERVER_HTTP_FRONTEND_H_

#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "server/inference_handler.h"

namespace httplib {
class Server;
}  // namespace httplib

namespace static_runtime {
namespace server {

// An inference request's body decoded: JSON alone, or (binary extension)
// `header_length` bytes of JSON followed by the inputs' binary data.
struct HttpInferRequest {
  InferRequest request;
  bool all_outputs_binary = false;
  std::vector<std::string> binary_outputs;  // outputs asked for as binary data
};
absl::StatusOr<HttpInferRequest> DecodeHttpRequest(absl::string_view body,
                                                   std::optional<size_t> header_length,
                                                   const ServerLimits& limits);

// The response's body, and the length of its JSON part when binary data
// follows it.
struct HttpBody {
  std::string body;
  std::optional<size_t> header_length;
};
absl::StatusOr<HttpBody> EncodeHttpResponse(const InferResponse& response,
                                            const HttpInferRequest& request);

class HttpFrontend {
 public:
  explicit HttpFrontend(InferenceHandler& handler);
  ~HttpFrontend();

  // Listens on `address` (HOST:PORT; port 0 picks one) with `threads`
  // connection threads and returns the port.
  absl::StatusOr<int> Start(const std::string& address, const TlsFiles& tls, int threads);
  // Stops taking connections and waits for the requests in flight.
  void Shutdown();

 private:
  void Route();

  InferenceHandler& handler_;
  std::unique_ptr<httplib::Server> server_;
  std::thread listener_;
};

}  // namespace server
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_SERVER_HTTP_FRONTEND_H_
