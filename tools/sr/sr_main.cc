// sr: run, benchmark, check and explain a TorchScript model on the static
// runtime.
//
//   bazel run //tools:sr -- bench [MODEL.pt] [--inputs=FILE | --input-spec=SPEC]
//   bazel run //tools:sr -- explain [MODEL.pt] [--dot=FILE]
//   bazel run //tools:sr -- COMMAND --help
//
// Each command is defined in its own file (tools/sr/command.h) with the
// flags it takes; another command's flag is an error naming it. Errors
// print one line on stderr and exit non-zero (1: the model or its inputs;
// 2: the command line).
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "errors/status_from_exception.h"
#include "tools/sr/args.h"
#include "tools/sr/command.h"
#include "tools/sr/process_setup.h"
#include "tools/sr/run_setup.h"

namespace static_runtime {
namespace sr {
namespace {

// Every command's usage line and description.
std::string Usage() {
  std::string usage;
  for (const Command& command : Commands()) {
    absl::StrAppend(&usage, usage.empty() ? "usage: sr " : "       sr ", command.usage, "\n");
  }
  absl::StrAppend(&usage, "\n");
  for (const Command& command : Commands()) {
    absl::StrAppend(&usage, command.name, " ", command.description, "\n");
  }
  absl::StrAppend(&usage, "\nsr COMMAND --help lists the command's flags.\n");
  return usage;
}

// One command's usage, description and flags.
std::string CommandHelp(const Command& command) {
  return absl::StrCat("usage: sr ", command.usage, "\n\n", command.name, " ", command.description,
                      "\n\nflags:\n", FlagHelp(FlagsOf(command)));
}

// For each flag, the commands other than `command` that declare it.
absl::flat_hash_map<std::string, std::string> OtherCommandsFlags(const Command& command) {
  absl::flat_hash_map<std::string, std::vector<std::string>> owners;
  for (const Command& other : Commands()) {
    if (other.name == command.name) continue;
    for (const FlagSpec& flag : FlagsOf(other)) owners[flag.name].push_back(other.name);
  }
  absl::flat_hash_map<std::string, std::string> joined;
  for (const auto& [flag, names] : owners) joined[flag] = absl::StrJoin(names, ", ");
  return joined;
}

int Main(int argc, char** argv) {
  std::vector<std::string> arguments(argv, argv + argc);
  for (size_t i = 0; i + 1 < arguments.size(); ++i) {  // -o FILE is --out=FILE
    if (arguments[i] == "-o") {
      arguments[i] = "--out=" + arguments[i + 1];
      arguments.erase(arguments.begin() + i + 1);
    }
  }
  std::string name;  // the first argument that is not a flag
  for (size_t i = 1; i < arguments.size() && name.empty(); ++i) {
    if (!absl::StartsWith(arguments[i], "--")) name = arguments[i];
  }
  if (name.empty() || name == "help") {
    const bool help = name == "help" ||
                      std::find(arguments.begin(), arguments.end(), "--help") != arguments.end();
    if (help) {
      std::cout << Usage();
      return 0;
    }
    return Fail(2, "no command given (try: sr --help, sr bench --help)");
  }
  std::vector<std::string> names;
  const Command* command = nullptr;
  for (const Command& candidate : Commands()) {
    if (candidate.name == name) command = &candidate;
    names.push_back(candidate.name);
  }
  if (command == nullptr) {
    return Fail(2, absl::StrCat("unknown command '", name,
                                "' (commands: ", absl::StrJoin(names, ", "), ")"));
  }
  absl::StatusOr<Args> args =
      Args::Parse(arguments, FlagsOf(*command), OtherCommandsFlags(*command));
  if (!args.ok()) return Fail(2, std::string(args.status().message()));
  if (args->Bool("help")) {
    std::cout << CommandHelp(*command);
    return 0;
  }
  if (command->loads_models) {
    if (int code = SetUpProcess(*args, argv)) return code;
  }
  return command->run(*args);
}

}  // namespace
}  // namespace sr
}  // namespace static_runtime

int main(int argc, char** argv) {
  try {
    return static_runtime::sr::Main(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "sr: " << static_runtime::StatusFromException(e, "").message() << "\n";
    return 1;
  }
}
