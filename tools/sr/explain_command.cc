// sr explain: the prepared graph, each node's kernel and why.
#include <iostream>
#include <string>

#include "runtime/package.h"
#include "runtime/reports/explain.h"
#include "tools/sr/command.h"
#include "tools/sr/run_setup.h"

namespace static_runtime {
namespace sr {
namespace {

// The package's static module, or one prepared from the model named on the
// command line (or the embedded one).
absl::StatusOr<StaticModule::Ptr> LoadStaticModule(const Args& args, const Options& options,
                                                   std::string& name) {
  if (IsPackage(args)) {
    name = args.positional()[0];
    return LoadPackage(name);
  }
  absl::StatusOr<torch::jit::Module> module = LoadModel(args, name);
  if (!module.ok()) return module.status();
  return StaticModule::FromModule(*module, args.Bool("frozen"), options);
}

int ExplainMain(const Args& args) {
  if (args.positional().size() > 1) return Fail(2, "explain takes at most one model file");
  const Options options = OptionsFrom(args);
  absl::Status valid = ValidateOptions(options);
  if (!valid.ok()) return Fail(2, std::string(valid.message()));
  std::string model_name;
  absl::StatusOr<StaticModule::Ptr> static_module = LoadStaticModule(args, options, model_name);
  if (!static_module.ok()) {
    // The check's full report: every node the runtime cannot run.
    std::cout << "model: " << model_name << "\n" << static_module.status().message() << "\n";
    return 1;
  }
  std::cout << "model: " << model_name << "\n" << reports::Explain(**static_module);
  return WriteIfGiven(args, "dot", reports::ToDot(**static_module));
}

}  // namespace

Command ExplainCommand() {
  return {
      "explain",
      "explain [MODEL.pt | MODEL.srpkg] [--dot=FILE] [flags]",
      "prints the prepared graph, each node's kernel kind and why a node runs in fallback, or "
      "why the model cannot run.",
      Join(Join({{"dot", FlagKind::kString, "", "also write the graph for Graphviz to this file"}},
                ModelFlags({"builtin", "frozen"})),
           OptionFlags()),
      ExplainMain,
  };
}

}  // namespace sr
}  // namespace static_runtime
