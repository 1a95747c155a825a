// sr serve: the model server (the Open Inference Protocol over gRPC and
// HTTP, docs/serving.md).
#include <iostream>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "server/read_file.h"
#include "server/server.h"
#include "tools/intra_op_threads.h"
#include "tools/sr/command.h"
#include "tools/sr/run_setup.h"

namespace static_runtime {
namespace sr {
namespace {

int ServeMain(const Args& args) {
  if (!args.positional().empty()) return Fail(2, "serve takes no model file: use --repository");
  if (!args.Given("repository")) return Fail(2, "serve needs --repository=DIR");
  server::ServerOptions options;
  options.repository.directory = args.String("repository");
  const std::string cache = args.String("cache_dir");
  options.repository.cache_directory =
      cache == "none" ? "" : (cache.empty() ? options.repository.directory + "/.sr_cache" : cache);
  const std::string engine = args.String("engine");
  if (engine != "static" && engine != "jit") {
    return Fail(2, absl::StrCat("--engine=", engine, ": give static or jit"));
  }
  options.repository.engine =
      engine == "jit" ? server::EngineKind::kJit : server::EngineKind::kStaticRuntime;
  options.grpc_address = args.String("grpc");
  options.http_address = args.String("http");
  options.tls = {args.String("tls_cert"), args.String("tls_key")};
  if (options.tls.certificate.empty() != options.tls.private_key.empty()) {
    return Fail(2, "give both --tls-cert and --tls-key, or neither");
  }
  if (args.Given("token_file")) {
    absl::StatusOr<std::string> token = server::ReadTokenFile(args.String("token_file"));
    if (!token.ok()) return Fail(2, std::string(token.status().message()));
    options.token = *std::move(token);
  }
  options.http_threads = args.Int("http_threads");
  // Each instance of a model runs on one core (config.json's instances
  // are the parallelism), unless --intra-op-threads says otherwise.
  SetIntraOpThreads(args.Int("intra_op_threads"));
  options.shutdown_seconds = args.Double("shutdown_seconds");
  options.limits.max_request_bytes = args.Int("max_request_bytes");
  options.limits.max_tensors = args.Int("max_tensors");
  options.limits.max_elements = args.Int("max_elements");
  if (options.http_threads < 1 || options.limits.max_request_bytes < 1 ||
      options.limits.max_tensors < 1 || options.limits.max_elements < 1) {
    return Fail(2, "--http-threads and the --max-* limits must be at least 1");
  }
  absl::Status served = server::RunServer(options, std::cout);
  if (!served.ok()) {
    return Fail(served.code() == absl::StatusCode::kInvalidArgument ? 2 : 1,
                std::string(served.message()));
  }
  return 0;
}

}  // namespace

Command ServeCommand() {
  return {
      "serve",
      "serve --repository=DIR [--grpc=HOST:PORT] [--http=HOST:PORT] [--engine=static|jit] "
      "[flags]",
      "serves the repository's models on the Open Inference Protocol (KServe v2) over gRPC "
      "and HTTP until SIGTERM (docs/serving.md).",
      Join(
          {
              {"repository", FlagKind::kString, "",
               "the model repository, a folder of NAME/model.pt or NAME/model.srpkg (and "
               "optional NAME/config.json)"},
              {"grpc", FlagKind::kString, "",
               "gRPC address HOST:PORT, or PORT for 127.0.0.1:PORT (0: any free port)"},
              {"http", FlagKind::kString, "",
               "HTTP address HOST:PORT, or PORT for 127.0.0.1:PORT (0: any free port)"},
              {"engine", FlagKind::kString, "static",
               "what runs the models: static (this runtime) or jit (the TorchScript JIT)"},
              {"cache_dir", FlagKind::kString, "",
               "where prepared models are kept between restarts (default: "
               "REPOSITORY/.sr_cache; none: no cache)"},
              {"token_file", FlagKind::kString, "",
               "a file holding the bearer token every request but health checks must carry"},
              {"tls_cert", FlagKind::kString, "", "PEM certificate: HTTPS and gRPC over TLS"},
              {"tls_key", FlagKind::kString, "", "PEM private key of --tls-cert"},
              {"http_threads", FlagKind::kInt, "16", "HTTP connection threads"},
              {"shutdown_seconds", FlagKind::kDouble, "10",
               "on SIGTERM, how long requests in flight get to finish"},
              {"max_request_bytes", FlagKind::kInt, "67108864", "the largest request accepted"},
              {"max_tensors", FlagKind::kInt, "256", "the most tensors a request may hold"},
              {"max_elements", FlagKind::kInt, "67108864",
               "the most elements one tensor of a request may hold"},
          },
          ModelFlags({"intra_op_threads"})),
      ServeMain,
  };
}

}  // namespace sr
}  // namespace static_runtime
