#include "tools/sr/args.h"

#include <stdexcept>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace static_runtime {
namespace sr {

absl::StatusOr<Args> Args::Parse(
    const std::vector<std::string>& argv, const std::vector<FlagSpec>& specs,
    const absl::flat_hash_map<std::string, std::string>& other_commands) {
  Args args;
  absl::flat_hash_map<std::string, const FlagSpec*> by_name;
  for (const FlagSpec& spec : specs) {
    by_name[spec.name] = &spec;
    args.values_[spec.name] = spec.default_value;
  }
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (!absl::StartsWith(arg, "--")) {
      if (args.command_.empty()) {
        args.command_ = arg;
      } else {
        args.positional_.push_back(arg);
      }
      continue;
    }
    const size_t equals = arg.find('=');
    std::string name = absl::StrReplaceAll(arg.substr(2, equals - 2), {{"-", "_"}});
    auto spec = by_name.find(name);
    if (spec == by_name.end()) {
      const std::string help =
          args.command_.empty() ? "--help" : absl::StrCat("sr ", args.command_, " --help");
      auto elsewhere = other_commands.find(name);
      if (elsewhere != other_commands.end()) {
        return absl::InvalidArgumentError(
            absl::StrCat("--", name, " is a flag of ", elsewhere->second, ", not of ",
                         args.command_.empty() ? "sr itself" : args.command_, " (see ", help, ")"));
      }
      return absl::InvalidArgumentError(absl::StrCat("unknown flag --", name, " (see ", help, ")"));
    }
    const bool has_value = equals != std::string::npos;
    std::string value = has_value ? arg.substr(equals + 1) : "";
    switch (spec->second->kind) {
      case FlagKind::kBool:
        if (!has_value) value = "true";
        value = absl::AsciiStrToLower(value);
        if (value == "1") value = "true";
        if (value == "0") value = "false";
        if (value != "true" && value != "false") {
          return absl::InvalidArgumentError(
              absl::StrCat("--", name, " takes true or false, not '", value, "'"));
        }
        break;
      case FlagKind::kInt: {
        int parsed;
        if (!has_value || !absl::SimpleAtoi(value, &parsed)) {
          return absl::InvalidArgumentError(
              absl::StrCat("--", name, " needs an integer value (--", name, "=N)"));
        }
        break;
      }
      case FlagKind::kDouble: {
        double parsed;
        if (!has_value || !absl::SimpleAtod(value, &parsed)) {
          return absl::InvalidArgumentError(
              absl::StrCat("--", name, " needs a number (--", name, "=X)"));
        }
        break;
      }
      case FlagKind::kString:
        if (!has_value || value.empty()) {
          return absl::InvalidArgumentError(
              absl::StrCat("--", name, " needs a value (--", name, "=...)"));
        }
        break;
    }
    args.values_[name] = value;
    args.given_[name] = true;
  }
  return args;
}

const std::string& Args::Value(const std::string& name) const {
  auto value = values_.find(name);
  if (value == values_.end()) {
    throw std::logic_error(
        absl::StrCat("sr ", command_, " reads --", name, ", a flag it does not declare"));
  }
  return value->second;
}

std::string FlagHelp(const std::vector<FlagSpec>& specs) {
  std::string text;
  for (const FlagSpec& spec : specs) {
    std::string name = absl::StrReplaceAll(spec.name, {{"_", "-"}});
    absl::StrAppend(
        &text, "  --", name,
        spec.kind == FlagKind::kBool     ? "[=true|false]"
        : spec.kind == FlagKind::kInt    ? "=N"
        : spec.kind == FlagKind::kDouble ? "=X"
                                         : "=VALUE",
        "\n      ", spec.help,
        spec.default_value.empty() ? "" : absl::StrCat(" (default ", spec.default_value, ")"),
        "\n");
  }
  return text;
}

}  // namespace sr
}  // namespace static_runtime
