// RunServer: `sr serve`. Starts the transports asked for (gRPC, HTTP, or
// both), prints the address each listens on, loads the repository's models
// (the server is live at once and ready once every model has been tried),
// and serves until SIGTERM or SIGINT. Then it shuts down gracefully: not
// ready any more, no new connections, requests in flight get up to
// `shutdown_seconds` to finish, queued requests run, and it returns OK
// (exit 0).
#ifndef STATIC_RUNTIME_SERVER_SERVER_H_
#define STATIC_RUNTIME_SERVER_SERVER_H_

#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "server/inference_handler.h"
#include "server/model_repository.h"

namespace static_runtime {
namespace server {

struct ServerOptions {
  RepositoryOptions repository;
  // HOST:PORT, or PORT alone for 127.0.0.1:PORT; empty: no such transport.
  std::string grpc_address;
  std::string http_address;
  TlsFiles tls;       // for both transports
  std::string token;  // empty: no authentication
  ServerLimits limits;
  int http_threads = 16;
  double shutdown_seconds = 10;
};

absl::Status RunServer(const ServerOptions& options, std::ostream& out);

}  // namespace server
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_SERVER_SERVER_H_
