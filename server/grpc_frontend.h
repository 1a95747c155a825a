// GrpcFrontend: the Open Inference Protocol's gRPC transport
// (inference.GRPCInferenceService, server/open_inference.proto) over an
// InferenceHandler. Tensors come as raw_input_contents or typed contents
// and go back as raw_output_contents; gRPC deadlines and cancellation reach
// the model's queue; messages above the handler's byte limit are refused by
// gRPC itself; with a token, every call but the health checks needs
// "authorization: Bearer <token>" metadata.
#ifndef STATIC_RUNTIME_SERVER_GRPC_FRONTEND_H_
#define STATIC_RUNTIME_SERVER_GRPC_FRONTEND_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "server/inference_handler.h"
#include "server/open_inference.pb.h"

namespace grpc {
class Server;
}  // namespace grpc

namespace static_runtime {
namespace server {

// The request as the handler takes it; errors name the input. (Also what
// the gRPC request fuzzer calls.)
absl::StatusOr<InferRequest> DecodeGrpcRequest(const inference::ModelInferRequest& request,
                                               const ServerLimits& limits);

class GrpcFrontend {
 public:
  explicit GrpcFrontend(InferenceHandler& handler);
  ~GrpcFrontend();

  // Listens on `address` (HOST:PORT; port 0 picks one) and returns the port.
  absl::StatusOr<int> Start(const std::string& address, const TlsFiles& tls);
  // Stops taking calls; calls in flight get until `deadline`.
  void Shutdown(absl::Time deadline);

 private:
  class Service;
  InferenceHandler& handler_;
  std::unique_ptr<Service> service_;
  std::unique_ptr<grpc::Server> server_;
};

}  // namespace server
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_SERVER_GRPC_FRONTEND_H_
