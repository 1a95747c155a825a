// Command-line parsing for `sr`: `sr <command> [positional...] [--flag=value
// | --flag]...`. Flag names accept '-' or '_' alike (--input-spec ==
// --input_spec). Each command declares its own flags, with their kinds; a
// flag the command does not declare (naming the commands that do, when
// another does), a missing or malformed value is an InvalidArgument naming
// the flag.
#ifndef STATIC_RUNTIME_TOOLS_SR_ARGS_H_
#define STATIC_RUNTIME_TOOLS_SR_ARGS_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"

namespace static_runtime {
namespace sr {

enum class FlagKind { kString, kInt, kDouble, kBool };

struct FlagSpec {
  std::string name;  // with underscores
  FlagKind kind;
  std::string default_value;
  std::string help;
};

class Args {
 public:
  // argv[0] is the program; the first argument that is not a flag is the
  // command. `specs` are the command's flags; `other_commands` maps a flag
  // some other command declares to their names ("bench, profile"), for the
  // error.
  static absl::StatusOr<Args> Parse(
      const std::vector<std::string>& argv, const std::vector<FlagSpec>& specs,
      const absl::flat_hash_map<std::string, std::string>& other_commands = {});

  const std::string& command() const { return command_; }
  const std::vector<std::string>& positional() const { return positional_; }
  // A flag's value (its default unless given). Asking for a flag the
  // command did not declare is a mistake in sr itself: std::logic_error.
  const std::string& String(const std::string& name) const { return Value(name); }
  int Int(const std::string& name) const { return std::stoi(Value(name)); }
  double Double(const std::string& name) const { return std::stod(Value(name)); }
  bool Bool(const std::string& name) const { return Value(name) == "true"; }
  bool Given(const std::string& name) const { return given_.contains(name); }
  bool Declares(const std::string& name) const { return values_.contains(name); }

 private:
  const std::string& Value(const std::string& name) const;

  std::string command_;
  std::vector<std::string> positional_;
  absl::flat_hash_map<std::string, std::string> values_;
  absl::flat_hash_map<std::string, bool> given_;
};

// The flag list for --help.
std::string FlagHelp(const std::vector<FlagSpec>& specs);

}  // namespace sr
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_TOOLS_SR_ARGS_H_
