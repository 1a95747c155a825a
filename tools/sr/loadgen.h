// `sr loadgen`: load on a running `sr serve` (or any server of the Open
// Inference Protocol) over gRPC, from this process: closed loop (N clients,
// each sending its next request when the last one is answered) or open loop
// (requests sent at a fixed rate, whatever the answers do; latency counted
// from each request's scheduled time, so a slow server cannot hide its
// queueing). Bounded in time and in count, and loopback only: a load
// generator aimed at another machine by mistake is refused. Reports
// throughput, p50/p90/p99 latency and failures by status code.
#ifndef STATIC_RUNTIME_TOOLS_SR_LOADGEN_H_
#define STATIC_RUNTIME_TOOLS_SR_LOADGEN_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "server/open_inference.pb.h"
#include "tools/sr/latency.h"

namespace static_runtime {
namespace sr {

struct LoadgenConfig {
  std::string address;           // HOST:PORT on loopback
  int clients = 1;               // closed loop: concurrent clients; open loop: senders
  double rate = 0;               // requests per second; 0: closed loop
  double seconds = 3;            // at most this long (0 < seconds <= 600)
  int64_t max_requests = 0;      // at most this many; 0: only the time bounds
  std::string token;             // sent as "authorization: Bearer <token>"
  std::string root_certificate;  // PEM: TLS, trusting this certificate
  // Send ServerLive calls instead of the request: the transport's own
  // round trip, the floor under any model's.
  bool server_live_only = false;
};

struct LoadgenReport {
  int64_t sent = 0;
  int64_t ok = 0;
  // By gRPC status code name: how many, and the first one's message.
  struct Failures {
    int64_t count = 0;
    std::string first_message;
  };
  std::map<std::string, Failures> failures;
  double wall_seconds = 0;
  Latency latency;  // of the answered requests
};

absl::StatusOr<LoadgenReport> RunLoad(const LoadgenConfig& config,
                                      const inference::ModelInferRequest& request);

std::string FormatLoadgenReport(const LoadgenConfig& config, const LoadgenReport& report);

}  // namespace sr
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_TOOLS_SR_LOADGEN_H_
