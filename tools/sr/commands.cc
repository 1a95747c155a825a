#include "tools/sr/command.h"
#include "tools/sr/process_setup.h"

namespace static_runtime {
namespace sr {

const std::vector<Command>& Commands() {
  static const auto* const kCommands = new std::vector<Command>{
      BenchCommand(),  ProfileCommand(), ExplainCommand(),    PlanCommand(), CompileCommand(),
      ServeCommand(),  LoadgenCommand(), ThroughputCommand(), LoadCommand(), ExportCommand(),
      VerifyCommand(), GateCommand(),    SweepCommand(),
  };
  return *kCommands;
}

std::vector<FlagSpec> FlagsOf(const Command& command) {
  std::vector<FlagSpec> flags = command.flags;
  if (command.loads_models) {
    for (FlagSpec& flag : ProcessFlags()) flags.push_back(std::move(flag));
  }
  flags.push_back({"help", FlagKind::kBool, "false", "this text"});
  return flags;
}

}  // namespace sr
}  // namespace static_runtime
