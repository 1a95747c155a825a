// sr loadgen: load on a running server over gRPC (loopback only).
#include <filesystem>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "load/load.h"
#include "server/model_signature.h"
#include "server/open_inference.pb.h"
#include "server/read_file.h"
#include "server/tensor_codec.h"
#include "tools/sr/command.h"
#include "tools/sr/loadgen.h"
#include "tools/sr/run_setup.h"

namespace static_runtime {
namespace sr {
namespace {

int LoadgenMain(const Args& args) {
  if (!args.Given("grpc")) return Fail(2, "loadgen needs --grpc=HOST:PORT, the server's address");
  RunSetup setup;
  if (int code = PrepareRun(args, "loadgen", setup)) return code;
  const c10::FunctionSchema schema =
      setup.package ? setup.package->schema() : ForwardSchema(setup.module);
  absl::StatusOr<std::vector<server::NamedTensor>> inputs =
      server::ModelSignature::Inputs(schema, setup.inputs);
  if (!inputs.ok()) return Fail(2, std::string(inputs.status().message()));
  inference::ModelInferRequest request;
  request.set_model_name(
      args.Given("model")
          ? args.String("model")
          : std::filesystem::path(setup.model_name).parent_path().filename().string());
  for (const server::NamedTensor& input : *inputs) {
    const absl::Status described =
        server::DescribeTensor(input.name, input.tensor, *request.add_inputs());
    if (!described.ok()) return Fail(2, std::string(described.message()));
    request.add_raw_input_contents(server::RawBytes(input.tensor));
  }
  LoadgenConfig config;
  config.address = args.String("grpc");
  config.clients = args.Int("threads");
  config.rate = args.Double("rate");
  config.seconds = args.Double("seconds");
  config.max_requests = args.Int("max_requests");
  config.server_live_only = args.Bool("server_live_only");
  if (args.Given("token_file")) {
    absl::StatusOr<std::string> token = server::ReadTokenFile(args.String("token_file"));
    if (!token.ok()) return Fail(2, std::string(token.status().message()));
    config.token = *std::move(token);
  }
  if (args.Given("tls_cert")) {
    absl::StatusOr<std::string> certificate = server::ReadFile(args.String("tls_cert"));
    if (!certificate.ok()) return Fail(2, std::string(certificate.status().message()));
    config.root_certificate = *certificate;
  }
  absl::StatusOr<LoadgenReport> report = RunLoad(config, request);
  if (!report.ok()) {
    return Fail(report.status().code() == absl::StatusCode::kInvalidArgument ? 2 : 1,
                std::string(report.status().message()));
  }
  std::cout << "model: " << request.model_name() << "\n" << FormatLoadgenReport(config, *report);
  return report->ok > 0 ? 0 : 1;
}

}  // namespace

Command LoadgenCommand() {
  return {
      "loadgen",
      "loadgen MODEL.pt --inputs=FILE | --input-spec=SPEC --grpc=HOST:PORT [--model=NAME] "
      "[--threads=N | --rate=R] [--seconds=S] [--max-requests=N]",
      "sends the model's inputs to a running server over gRPC (loopback only), closed loop "
      "with N clients or open loop at R requests per second, and prints throughput and "
      "latency percentiles.",
      Join(
          {
              {"grpc", FlagKind::kString, "", "the server's gRPC address HOST:PORT"},
              {"model", FlagKind::kString, "",
               "the model's name on the server (default: the model file's folder name)"},
              {"threads", FlagKind::kInt, "1", "clients (closed loop)"},
              {"rate", FlagKind::kDouble, "0",
               "requests per second, all clients together (0: back to back)"},
              {"seconds", FlagKind::kDouble, "3", "how long to send, timed"},
              {"max_requests", FlagKind::kInt, "0",
               "send at most this many requests (0: only --seconds bounds them)"},
              {"server_live_only", FlagKind::kBool, "false",
               "send ServerLive calls instead of the model's inputs (the transport's own "
               "round trip)"},
              {"token_file", FlagKind::kString, "",
               "a file holding the bearer token the server asks for"},
              {"tls_cert", FlagKind::kString, "",
               "PEM certificate the server's is checked against: gRPC over TLS"},
          },
          RunFlags()),
      LoadgenMain,
  };
}

}  // namespace sr
}  // namespace static_runtime
