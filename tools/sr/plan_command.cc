// sr plan: the memory plan after a run, drawn as an SVG picture.
#include <iostream>
#include <string>

#include "absl/strings/str_format.h"
#include "runtime/static_runtime.h"
#include "tools/sr/command.h"
#include "tools/sr/plan_svg.h"
#include "tools/sr/run_setup.h"

namespace static_runtime {
namespace sr {
namespace {

int PlanMain(const Args& args) {
  if (!args.Given("svg")) return Fail(2, "plan needs --svg=FILE");
  RunSetup setup;
  if (int code = PrepareRun(args, "plan", setup)) return code;
  absl::StatusOr<StaticModule::Ptr> static_module = PreparedModule(args, setup);
  if (!static_module.ok()) return Fail(1, std::string(static_module.status().message()));
  StaticRuntime runtime(*static_module);
  absl::StatusOr<c10::IValue> result = runtime.Run(setup.inputs);
  if (!result.ok()) return Fail(1, std::string(result.status().message()));
  const MemoryPlanDescription plan = runtime.DescribeMemoryPlan();
  if (plan.tensors.empty()) {
    return Fail(1,
                "the runtime plans no memory for this model (no managed tensors, or "
                "--optimize-memory=false)");
  }
  const ArenaStats& stats = plan.stats;
  std::cout << "model: " << setup.model_name << "\n"
            << absl::StrFormat(
                   "%d managed tensors; arena %d B (%s), storage groups %d B, greedy by "
                   "size %d B, lower bound %d B\nwrote %s\n",
                   stats.managed_tensors, plan.planned_bytes, stats.algorithm,
                   stats.storage_groups_bytes, stats.greedy_by_size_bytes, stats.lower_bound_bytes,
                   args.String("svg"));
  return WriteIfGiven(args, "svg", PlanSvg(plan));
}

}  // namespace

Command PlanCommand() {
  return {
      "plan",
      "plan [MODEL.pt | MODEL.srpkg] --svg=FILE [flags]",
      "draws the memory plan after a run.",
      Join({{"svg", FlagKind::kString, "", "write the memory plan as an SVG picture"}}, RunFlags()),
      PlanMain,
  };
}

}  // namespace sr
}  // namespace static_runtime
