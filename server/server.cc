#include "server/server.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "glog/logging.h"
#include "server/grpc_frontend.h"
#include "server/http_frontend.h"

namespace static_runtime {
namespace server {
namespace {

// The signal handler's end of a pipe the serving thread reads: the handler
// may run on any thread, and write() is async-signal-safe.
int stop_pipe[2] = {-1, -1};

void OnStopSignal(int signal_number) {
  const char byte = static_cast<char>(signal_number);
  [[maybe_unused]] ssize_t written = write(stop_pipe[1], &byte, 1);
}

absl::Status InstallStopHandlers() {
  if (stop_pipe[0] < 0 && pipe(stop_pipe) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  struct sigaction action = {};
  action.sa_handler = OnStopSignal;
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGTERM, &action, nullptr) != 0 || sigaction(SIGINT, &action, nullptr) != 0) {
    return absl::InternalError(absl::StrCat("sigaction: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

int WaitForStopSignal() {
  char byte = 0;
  while (read(stop_pipe[0], &byte, 1) < 0 && errno == EINTR) {
  }
  return byte;
}

std::string HostOf(const std::string& address) { return address.substr(0, address.rfind(':')); }

// A port alone listens on loopback only.
std::string WithHost(const std::string& address) {
  return address.find(':') == std::string::npos ? "127.0.0.1:" + address : address;
}

}  // namespace

absl::Status RunServer(const ServerOptions& options, std::ostream& out) {
  if (options.grpc_address.empty() && options.http_address.empty()) {
    return absl::InvalidArgumentError("serve needs --grpc=HOST:PORT, --http=HOST:PORT or both");
  }
  if (absl::Status handlers = InstallStopHandlers(); !handlers.ok()) return handlers;
  ModelRepository repository(options.repository);
  InferenceHandler handler(repository, options.limits, options.token);
  GrpcFrontend grpc(handler);
  HttpFrontend http(handler);
  if (!options.grpc_address.empty()) {
    const std::string address = WithHost(options.grpc_address);
    absl::StatusOr<int> port = grpc.Start(address, options.tls);
    if (!port.ok()) return port.status();
    out << "grpc: listening on " << HostOf(address) << ":" << *port << std::endl;
  }
  if (!options.http_address.empty()) {
    const std::string address = WithHost(options.http_address);
    absl::StatusOr<int> port = http.Start(address, options.tls, options.http_threads);
    if (!port.ok()) return port.status();
    out << "http: listening on " << HostOf(address) << ":" << *port << std::endl;
  }
  repository.LoadAll();
  int ready = 0;
  for (const ModelIndexEntry& entry : repository.Index()) {
    out << "model " << entry.name << ": " << entry.state
        << (entry.reason.empty() ? "" : absl::StrCat(" (", entry.reason, ")")) << std::endl;
    ready += entry.state == "READY";
  }
  out << "ready: " << ready << " model(s)" << std::endl;

  const int signal_number = WaitForStopSignal();
  LOG(INFO) << "signal " << signal_number << ": shutting down";
  out << "shutting down (signal " << signal_number << ")" << std::endl;
  handler.Drain();
  const absl::Time deadline = absl::Now() + absl::Seconds(options.shutdown_seconds);
  grpc.Shutdown(deadline);
  http.Shutdown();
  repository.UnloadAll();
  out << "stopped" << std::endl;
  return absl::OkStatus();
}

}  // namespace server
}  // namespace static_runtime
