// sr profile: time per node kind, the phases of a run, the runtime's
// overhead per node.
#include <iostream>
#include <string>

#include "runtime/reports/profile.h"
#include "tools/sr/command.h"
#include "tools/sr/run_setup.h"

namespace static_runtime {
namespace sr {
namespace {

int ProfileMain(const Args& args) {
  RunSetup setup;
  if (int code = PrepareRun(args, "profile", setup)) return code;
  absl::StatusOr<reports::ProfileReport> report =
      setup.package
          ? reports::Profile(setup.package, setup.package_load_ms, setup.inputs, args.Int("iters"))
          : reports::Profile(setup.module, args.Bool("frozen"), setup.options, setup.inputs,
                             args.Int("iters"));
  if (!report.ok()) return Fail(1, std::string(report.status().message()));
  std::cout << "model: " << setup.model_name << "\n" << reports::FormatProfile(*report);
  return WriteIfGiven(args, "trace", report->trace_json);
}

}  // namespace

Command ProfileCommand() {
  return {
      "profile",
      "profile [MODEL.pt | MODEL.srpkg] [--trace=FILE.json] [flags]",
      "shows time per node kind, the phases of a run and the runtime's overhead per node.",
      Join(
          {
              {"iters", FlagKind::kInt, "200", "profiled runs"},
              {"trace", FlagKind::kString, "", "write one run as a Chrome/Perfetto trace"},
          },
          RunFlags()),
      ProfileMain,
  };
}

}  // namespace sr
}  // namespace static_runtime
