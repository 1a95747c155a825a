// Command-line parsing for `sr`: `sr <command> [positional...] [--flag=value
// | --flag]...`. Flag names accept '-' or '_' alike (--input-spec ==
// --input_spec). Every flag must be declared with its kind; an unknown flag,
// a missing or malformed value is an InvalidArgument naming the flag.
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
  // argv[0] is the program; argv[1] the command.
  static absl::StatusOr<Args> Parse(const std::vector<std::string>& argv,
                                    const std::vector<FlagSpec>& specs);

  const std::string& command() const { return command_; }
  const std::vector<std::string>& positional() const { return positional_; }
  const std::string& String(const std::string& name) const { return values_.at(name); }
  int Int(const std::string& name) const { return std::stoi(values_.at(name)); }
  double Double(const std::string& name) const { return std::stod(values_.at(name)); }
  bool Bool(const std::string& name) const { return values_.at(name) == "true"; }
  bool Given(const std::string& name) const { return given_.contains(name); }

 private:
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
