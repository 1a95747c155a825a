// sr load: how long a model takes to become ready, each way of loading.
#include <cstdlib>
#include <iostream>
#include <string>

#include "tools/sr/command.h"
#include "tools/sr/load_bench.h"
#include "tools/sr/run_setup.h"

namespace static_runtime {
namespace sr {
namespace {

int LoadMain(const Args& args) {
  if (args.positional().size() != 1 || IsPackage(args)) {
    return Fail(2, "load takes one model file (MODEL.pt)");
  }
  RunSetup setup;
  if (int code = PrepareRun(args, "load", setup)) return code;
  const char* scratch = std::getenv("TMPDIR");
  absl::StatusOr<LoadReport> report = MeasureLoad(
      setup.model_name, setup.options, setup.inputs, args.Int("rounds"),
      scratch != nullptr && *scratch != '\0' ? scratch : "/tmp", args.Bool("packed_weights"));
  if (!report.ok()) return Fail(1, std::string(report.status().message()));
  std::cout << "model: " << setup.model_name << "\n" << FormatLoadReport(*report);
  return 0;
}

}  // namespace

Command LoadCommand() {
  return {
      "load",
      "load MODEL.pt --inputs=FILE | --input-spec=SPEC [--rounds=N] [flags]",
      "times how long MODEL.pt takes to become ready: prepared, from a compiled package and "
      "through the model cache, interleaved.",
      Join(
          {
              {"rounds", FlagKind::kInt, "5", "interleaved rounds of each way of loading"},
              PackedWeightsFlag(),
          },
          RunFlags()),
      LoadMain,
  };
}

}  // namespace sr
}  // namespace static_runtime
