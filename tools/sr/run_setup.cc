#include "tools/sr/run_setup.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "load/load.h"
#include "runtime/package.h"
#include "tools/intra_op_threads.h"
#include "tools/sr/default_model.h"
#include "tools/sr/input_spec.h"
#include "tools/sr/inputs_file.h"

namespace static_runtime {
namespace sr {

std::vector<FlagSpec> OptionFlags() {
  std::vector<FlagSpec> flags;
  const Options defaults;
  for (const BoolOption& flag : BoolOptions()) {
    flags.push_back(
        {flag.name, FlagKind::kBool, defaults.*flag.member ? "true" : "false", flag.help});
  }
  flags.push_back({"shape_plans_per_kernel", FlagKind::kInt,
                   absl::StrCat(defaults.shape_plans_per_kernel),
                   "input shapes whose plans each kernel cache keeps (least recently used "
                   "dropped first)"});
  return flags;
}

std::vector<FlagSpec> ModelFlags(std::initializer_list<const char*> names) {
  static const auto* const kFlags = new std::vector<FlagSpec>{
      {"builtin", FlagKind::kString, "ads",
       "the embedded model used without a model file: ads or op_dense"},
      {"inputs", FlagKind::kString, "", "inputs: a file written by torch.save (tuple or list)"},
      {"input_spec", FlagKind::kString, "",
       "random inputs, e.g. 'f32[8,64];i64[32]{0..999};int=3' (see docs/sr_tool.md)"},
      {"seed", FlagKind::kInt, "0", "seed for --input-spec"},
      {"frozen", FlagKind::kBool, "false", "the model is already frozen"},
      {"intra_op_threads", FlagKind::kInt, "1", "intra-op threads (ATen's and OpenBLAS's)"},
  };
  std::vector<FlagSpec> flags;
  for (const char* name : names) {
    bool found = false;
    for (const FlagSpec& flag : *kFlags) {
      if (flag.name == name) {
        flags.push_back(flag);
        found = true;
      }
    }
    if (!found) throw std::logic_error(absl::StrCat("sr has no model flag --", name));
  }
  return flags;
}

std::vector<FlagSpec> RunFlags() {
  return Join(ModelFlags({"builtin", "inputs", "input_spec", "seed", "frozen", "intra_op_threads"}),
              OptionFlags());
}

FlagSpec PackedWeightsFlag() {
  return {"packed_weights", FlagKind::kBool, "false",
          "the package also stores the oneDNN-packed weights (a faster first run, a larger "
          "package and a slower load)"};
}

std::vector<FlagSpec> Join(std::vector<FlagSpec> flags, const std::vector<FlagSpec>& more) {
  flags.insert(flags.end(), more.begin(), more.end());
  return flags;
}

int Fail(int code, const std::string& message) {
  std::cerr << "sr: " << message << "\n";
  return code;
}

absl::StatusOr<std::vector<c10::IValue>> LoadInputs(const Args& args) {
  if (args.Given("inputs")) return LoadInputsFile(args.String("inputs"));
  if (args.Given("input_spec")) return ParseInputSpec(args.String("input_spec"), args.Int("seed"));
  const char* builtin_spec =
      args.String("builtin") == "op_dense" ? kOpDenseInputSpec : kDefaultInputSpec;
  return ParseInputSpec(builtin_spec, args.Int("seed"));
}

bool IsPackage(const Args& args) {
  return !args.positional().empty() && absl::EndsWith(args.positional()[0], ".srpkg");
}

absl::StatusOr<torch::jit::Module> LoadModel(const Args& args, std::string& name) {
  if (args.positional().empty()) {
    if (args.String("builtin") == "op_dense") {
      name = "builtin op_dense";
      return OpDenseModel();
    }
    if (args.String("builtin") != "ads") {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown --builtin=", args.String("builtin"), " (ads or op_dense)"));
    }
    name = "default (ads ranking)";
    return DefaultModel();
  }
  name = args.positional()[0];
  return LoadModuleFromFile(name);
}

Options OptionsFrom(const Args& args) {
  Options options;
  for (const BoolOption& flag : BoolOptions()) options.*flag.member = args.Bool(flag.name);
  // (0 and below: ValidateOptions says why.)
  options.shape_plans_per_kernel =
      static_cast<size_t>(std::max(0, args.Int("shape_plans_per_kernel")));
  return options;
}

int PrepareRun(const Args& args, const char* command, RunSetup& setup) {
  if (args.positional().size() > 1) {
    return Fail(2, absl::StrCat(command, " takes at most one model file"));
  }
  if (args.Given("inputs") && args.Given("input_spec")) {
    return Fail(2, "give --inputs or --input-spec, not both");
  }
  if (!args.positional().empty() && !args.Given("inputs") && !args.Given("input_spec")) {
    return Fail(2, "a model file needs --inputs=FILE or --input-spec=SPEC");
  }
  setup.options = OptionsFrom(args);
  absl::Status valid = ValidateOptions(setup.options);
  if (!valid.ok()) return Fail(2, std::string(valid.message()));
  if (IsPackage(args)) {
    setup.model_name = args.positional()[0];
    const auto start = std::chrono::steady_clock::now();
    absl::StatusOr<StaticModule::Ptr> package = LoadPackage(setup.model_name);
    if (!package.ok()) return Fail(1, std::string(package.status().message()));
    setup.package = *std::move(package);
    setup.package_load_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    setup.options = setup.package->options();
    if (args.Declares("source") && args.Given("source")) {
      absl::StatusOr<torch::jit::Module> source = LoadModuleFromFile(args.String("source"));
      if (!source.ok()) return Fail(1, std::string(source.status().message()));
      setup.module = *std::move(source);
    }
  } else {
    absl::StatusOr<torch::jit::Module> module = LoadModel(args, setup.model_name);
    if (!module.ok()) return Fail(1, std::string(module.status().message()));
    setup.module = *std::move(module);
  }
  absl::StatusOr<std::vector<c10::IValue>> inputs = LoadInputs(args);
  if (inputs.ok()) {
    inputs = ArgumentsFromInputs(
        *std::move(inputs), setup.package ? setup.package->schema() : ForwardSchema(setup.module));
  }
  if (!inputs.ok()) return Fail(1, std::string(inputs.status().message()));
  setup.inputs = *std::move(inputs);
  SetIntraOpThreads(args.Int("intra_op_threads"));
  return 0;
}

absl::StatusOr<StaticModule::Ptr> PreparedModule(const Args& args, const RunSetup& setup) {
  if (setup.package) return setup.package;
  return StaticModule::FromModule(setup.module, args.Bool("frozen"), setup.options, setup.inputs);
}

int WriteIfGiven(const Args& args, const char* flag, const std::string& text) {
  if (!args.Given(flag)) return 0;
  std::ofstream file(args.String(flag), std::ios::binary);
  file << text;
  if (!file) return Fail(1, absl::StrCat("cannot write ", args.String(flag)));
  return 0;
}

}  // namespace sr
}  // namespace static_runtime
