// What the `sr` commands that load a model share: the flags that name the
// model, its inputs and the runtime options, and loading them
// (PrepareRun); writing a file a flag names; the one-line error.
#ifndef STATIC_RUNTIME_TOOLS_SR_RUN_SETUP_H_
#define STATIC_RUNTIME_TOOLS_SR_RUN_SETUP_H_

#include <initializer_list>
#include <string>
#include <vector>

#include "ATen/core/ivalue.h"
#include "absl/status/statusor.h"
#include "options/options.h"
#include "runtime/static_module.h"
#include "tools/sr/args.h"
#include "torch/script.h"

namespace static_runtime {
namespace sr {

// One flag per runtime option (BoolOptions(), with Options' own defaults).
std::vector<FlagSpec> OptionFlags();

// The flags that name a model and its inputs, by name: builtin, inputs,
// input_spec, seed, frozen, intra_op_threads.
std::vector<FlagSpec> ModelFlags(std::initializer_list<const char*> names);

// What PrepareRun reads: every model flag and every option flag.
std::vector<FlagSpec> RunFlags();

// --packed-weights (compile, load).
FlagSpec PackedWeightsFlag();

// `flags` followed by `more`.
std::vector<FlagSpec> Join(std::vector<FlagSpec> flags, const std::vector<FlagSpec>& more);

// Prints "sr: MESSAGE" on stderr; returns `code` (1: the model or its
// inputs; 2: the command line).
int Fail(int code, const std::string& message);

// --inputs, --input-spec, or the embedded model's spec.
absl::StatusOr<std::vector<c10::IValue>> LoadInputs(const Args& args);

// True if the model named on the command line is a compiled package.
bool IsPackage(const Args& args);

// The model named on the command line, or the embedded one (--builtin).
absl::StatusOr<torch::jit::Module> LoadModel(const Args& args, std::string& name);

// The runtime options of the option flags.
Options OptionsFrom(const Args& args);

// What the commands that run a model need.
struct RunSetup {
  std::string model_name;
  torch::jit::Module module;
  // A compiled package given instead of a model file, and its load time.
  StaticModule::Ptr package;
  double package_load_ms = 0;
  std::vector<c10::IValue> inputs;
  Options options;
};

// Checks the command line, loads the model (or package: with --source, if
// the command declares it, its model too) and its inputs, and sets the
// intra-op threads; 0 or an exit code.
int PrepareRun(const Args& args, const char* command, RunSetup& setup);

// The compiled package given, or the model prepared with the options.
absl::StatusOr<StaticModule::Ptr> PreparedModule(const Args& args, const RunSetup& setup);

// Writes `text` to the file named by flag `flag`, if given; 0 or an exit code.
int WriteIfGiven(const Args& args, const char* flag, const std::string& text);

}  // namespace sr
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_TOOLS_SR_RUN_SETUP_H_
