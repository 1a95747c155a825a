#include "tools/sr/loadgen.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/grpcpp.h"
#include "server/open_inference.grpc.pb.h"

namespace static_runtime {
namespace sr {
namespace {

using Clock = std::chrono::steady_clock;

bool IsLoopback(const std::string& address) {
  const std::string host = address.substr(0, address.rfind(':'));
  return host == "localhost" || host == "[::1]" || host.rfind("127.", 0) == 0;
}

const char* CodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::CANCELLED:
      return "CANCELLED";
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND:
      return "NOT_FOUND";
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case grpc::StatusCode::UNAVAILABLE:
      return "UNAVAILABLE";
    case grpc::StatusCode::UNAUTHENTICATED:
      return "UNAUTHENTICATED";
    case grpc::StatusCode::INTERNAL:
      return "INTERNAL";
    default:
      return "OTHER";
  }
}

// What every sender thread records, merged at the end.
struct Tally {
  absl::Mutex mutex;
  std::vector<double> latencies_us ABSL_GUARDED_BY(mutex);
  std::map<std::string, LoadgenReport::Failures> failures ABSL_GUARDED_BY(mutex);
  int64_t sent ABSL_GUARDED_BY(mutex) = 0;
};

}  // namespace

absl::StatusOr<LoadgenReport> RunLoad(const LoadgenConfig& config,
                                      const inference::ModelInferRequest& request) {
  if (!IsLoopback(config.address)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "loadgen sends load only to loopback addresses (127.x.x.x, localhost, [::1]), not ",
        config.address));
  }
  if (!(config.seconds > 0 && config.seconds <= 600)) {
    return absl::InvalidArgumentError("--seconds must be in (0, 600]");
  }
  if (config.clients < 1 || config.clients > 1024 || config.rate < 0 || config.rate > 1e6 ||
      config.max_requests < 0) {
    return absl::InvalidArgumentError(
        "--threads must be in [1, 1024], --rate in [0, 1e6], --max-requests >= 0");
  }
  std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
  if (!config.root_certificate.empty()) {
    grpc::SslCredentialsOptions options;
    options.pem_root_certs = config.root_certificate;
    credentials = grpc::SslCredentials(options);
  }
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(INT32_MAX);
  arguments.SetMaxSendMessageSize(INT32_MAX);
  std::shared_ptr<grpc::Channel> channel =
      grpc::CreateCustomChannel(config.address, credentials, arguments);
  if (!channel->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(10))) {
    return absl::UnavailableError(absl::StrCat("cannot connect to ", config.address));
  }
  auto stub = inference::GRPCInferenceService::NewStub(channel);

  const bool open_loop = config.rate > 0;
  const int senders = open_loop ? std::max(config.clients, 32) : config.clients;
  const Clock::time_point start = Clock::now();
  const Clock::time_point end = start + std::chrono::duration_cast<Clock::duration>(
                                            std::chrono::duration<double>(config.seconds));
  std::atomic<int64_t> next{0};
  Tally tally;
  auto send = [&](Clock::time_point scheduled) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    if (!config.token.empty()) context.AddMetadata("authorization", "Bearer " + config.token);
    grpc::Status status;
    if (config.server_live_only) {
      inference::ServerLiveResponse response;
      status = stub->ServerLive(&context, inference::ServerLiveRequest(), &response);
    } else {
      inference::ModelInferResponse response;
      status = stub->ModelInfer(&context, request, &response);
    }
    const double us = std::chrono::duration<double, std::micro>(Clock::now() - scheduled).count();
    absl::MutexLock lock(&tally.mutex);
    ++tally.sent;
    if (status.ok()) {
      tally.latencies_us.push_back(us);
    } else {
      LoadgenReport::Failures& failures = tally.failures[CodeName(status.error_code())];
      if (failures.count++ == 0) failures.first_message = status.error_message();
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < senders; ++t) {
    threads.emplace_back([&] {
      for (;;) {
        const int64_t i = next.fetch_add(1);
        if (config.max_requests > 0 && i >= config.max_requests) return;
        Clock::time_point scheduled = Clock::now();
        if (open_loop) {
          scheduled = start + std::chrono::duration_cast<Clock::duration>(
                                  std::chrono::duration<double>(i / config.rate));
          if (scheduled >= end) return;
          std::this_thread::sleep_until(scheduled);
        } else if (scheduled >= end) {
          return;
        }
        send(scheduled);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  LoadgenReport report;
  report.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  absl::MutexLock lock(&tally.mutex);
  report.sent = tally.sent;
  report.ok = static_cast<int64_t>(tally.latencies_us.size());
  report.failures = tally.failures;
  report.latency = Summarize(tally.latencies_us, report.wall_seconds * 1e6);
  return report;
}

std::string FormatLoadgenReport(const LoadgenConfig& config, const LoadgenReport& report) {
  std::string text = absl::StrFormat(
      "%s%s to %s: %d requests in %.2f s, %d answered (%.1f/s)\n"
      "latency us: p50 %.1f  p90 %.1f  p99 %.1f  mean %.1f\n",
      config.server_live_only ? "ServerLive calls, " : "",
      config.rate > 0 ? absl::StrFormat("open loop at %.1f/s", config.rate)
                      : absl::StrFormat("closed loop, %d client(s)", config.clients),
      config.address, report.sent, report.wall_seconds, report.ok,
      report.ok / std::max(report.wall_seconds, 1e-9), report.latency.median_us,
      report.latency.p90_us, report.latency.p99_us, report.latency.mean_us);
  for (const auto& [code, failures] : report.failures) {
    absl::StrAppend(&text, "failed: ", code, " ", failures.count,
                    " (the first: ", failures.first_message, ")\n");
  }
  return text;
}

}  // namespace sr
}  // namespace static_runtime
