// sr gate: benchmark reports judged against a baseline.
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "tools/sr/command.h"
#include "tools/sr/gate.h"
#include "tools/sr/run_setup.h"

namespace static_runtime {
namespace sr {
namespace {

int GateMain(const Args& args) {
  if (!args.Given("baseline") || !args.Given("current")) {
    return Fail(2, "gate needs --baseline=FILE[,FILE...] and --current=FILE[,FILE...]");
  }
  const double max_regression = args.Double("max_regression");
  if (!(max_regression >= 0)) return Fail(2, "--max-regression must be >= 0 (percent)");
  auto files = [&](const char* flag) -> std::vector<std::string> {
    return absl::StrSplit(args.String(flag), ',', absl::SkipEmpty());
  };
  absl::StatusOr<std::map<std::string, double>> baseline = ReadRatios(files("baseline"));
  if (!baseline.ok()) return Fail(2, std::string(baseline.status().message()));
  absl::StatusOr<std::map<std::string, double>> current = ReadRatios(files("current"));
  if (!current.ok()) return Fail(2, std::string(current.status().message()));
  const GateResult result = Gate(*baseline, *current, max_regression);
  std::cout << FormatGate(result, max_regression);
  return result.passed ? 0 : 1;
}

}  // namespace

Command GateCommand() {
  return {
      "gate",
      "gate --baseline=FILE[,FILE...] --current=FILE[,FILE...] [--max-regression=PCT]",
      "compares benchmark JSON reports (sr bench --json) by their static / JIT ratios and "
      "exits 1 on a regression beyond --max-regression percent or a missing model.",
      {
          {"baseline", FlagKind::kString, "", "the reference reports (sr bench --json)"},
          {"current", FlagKind::kString, "", "the reports to judge"},
          {"max_regression", FlagKind::kDouble, "5", "allowed growth of a ratio, percent"},
      },
      GateMain,
      /*loads_models=*/false,
  };
}

}  // namespace sr
}  // namespace static_runtime
