// One `sr` command: its name, usage line, description, the flags it takes
// and its handler. Each command is defined in its own file
// (tools/sr/<name>_command.cc) and listed once in Commands(); the usage
// text, the per-command --help, the dispatch and the errors for unknown
// commands and other commands' flags all come from that list.
#ifndef STATIC_RUNTIME_TOOLS_SR_COMMAND_H_
#define STATIC_RUNTIME_TOOLS_SR_COMMAND_H_

#include <string>
#include <vector>

#include "tools/sr/args.h"

namespace static_runtime {
namespace sr {

struct Command {
  std::string name;
  std::string usage;        // after "sr "
  std::string description;  // one paragraph
  // The command's own flags; the process flags (tools/sr/process_setup.h)
  // and --help come on top when `loads_models`.
  std::vector<FlagSpec> flags;
  int (*run)(const Args&) = nullptr;
  bool loads_models = true;
};

Command BenchCommand();
Command CompileCommand();
Command ExplainCommand();
Command ExportCommand();
Command GateCommand();
Command LoadCommand();
Command LoadgenCommand();
Command PlanCommand();
Command ProfileCommand();
Command ServeCommand();
Command SweepCommand();
Command ThroughputCommand();
Command VerifyCommand();

// Every command, in the order the usage text lists them.
const std::vector<Command>& Commands();

// Every flag a command takes: its own, then the process flags if it loads
// models, then --help.
std::vector<FlagSpec> FlagsOf(const Command& command);

}  // namespace sr
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_TOOLS_SR_COMMAND_H_
