// libFuzzer target: the gRPC transport's decoding of a ModelInferRequest
// (server/grpc_frontend.h) from its serialized protobuf, as gRPC hands it
// over: typed and raw contents, shapes, datatypes and parameters. Any bytes
// must give a request or an error status, never a crash, a hang, a
// sanitizer report or an allocation beyond the limits.
#include <cstddef>
#include <cstdint>

#include "server/grpc_frontend.h"
#include "server/open_inference.pb.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  inference::ModelInferRequest request;
  if (!request.ParseFromArray(data, static_cast<int>(size))) return 0;
  static_runtime::server::ServerLimits limits;
  limits.max_elements = 1 << 16;
  (void)static_runtime::server::DecodeGrpcRequest(request, limits);
  return 0;
}
