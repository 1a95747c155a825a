// sr throughput: the model called in process by N callers sharing a pool.
#include <iostream>
#include <string>

#include "tools/sr/command.h"
#include "tools/sr/run_setup.h"
#include "tools/sr/throughput.h"

namespace static_runtime {
namespace sr {
namespace {

int ThroughputMain(const Args& args) {
  RunSetup setup;
  if (int code = PrepareRun(args, "throughput", setup)) return code;
  absl::StatusOr<StaticModule::Ptr> static_module = PreparedModule(args, setup);
  if (!static_module.ok()) return Fail(1, std::string(static_module.status().message()));
  ThroughputConfig config;
  config.threads = args.Int("threads");
  config.calls_per_second = args.Double("rate");
  config.seconds = args.Double("seconds");
  config.warmup = args.Int("warmup");
  absl::StatusOr<ThroughputReport> report = RunThroughput(*static_module, setup.inputs, config);
  if (!report.ok()) {
    return Fail(report.status().code() == absl::StatusCode::kInvalidArgument ? 2 : 1,
                std::string(report.status().message()));
  }
  std::cout << "model: " << setup.model_name << "\n" << FormatThroughputReport(*report);
  return 0;
}

}  // namespace

Command ThroughputCommand() {
  return {
      "throughput",
      "throughput [MODEL.pt | MODEL.srpkg] [--threads=N] [--rate=CALLS_PER_S] [--seconds=S]",
      "calls the model from N caller threads sharing a runtime pool, in process, back to back "
      "or at a fixed rate, and prints calls per second, latency and the CPU the process "
      "burned.",
      Join(
          {
              {"threads", FlagKind::kInt, "1", "callers sharing one runtime pool"},
              {"rate", FlagKind::kDouble, "0",
               "calls per second, all callers together (0: back to back)"},
              {"seconds", FlagKind::kDouble, "3", "how long to call, timed"},
              {"warmup", FlagKind::kInt, "20", "untimed calls per caller first"},
          },
          RunFlags()),
      ThroughputMain,
  };
}

}  // namespace sr
}  // namespace static_runtime
