// sr compile: a model prepared once and written as a compiled package.
#include <chrono>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "load/load.h"
#include "runtime/model_cache.h"
#include "runtime/package.h"
#include "tools/intra_op_threads.h"
#include "tools/sr/command.h"
#include "tools/sr/input_spec.h"
#include "tools/sr/inputs_file.h"
#include "tools/sr/run_setup.h"

namespace static_runtime {
namespace sr {
namespace {

int CompileMain(const Args& args) {
  if (args.positional().size() != 1 || IsPackage(args)) {
    return Fail(2, "compile takes one model file (MODEL.pt)");
  }
  if (!args.Given("out")) return Fail(2, "compile needs -o FILE.srpkg (or --out=FILE.srpkg)");
  if (args.Given("inputs") && args.Given("input_spec")) {
    return Fail(2, "give --inputs or --input-spec, not both");
  }
  const Options options = OptionsFrom(args);
  absl::Status valid = ValidateOptions(options);
  if (!valid.ok()) return Fail(2, std::string(valid.message()));
  const std::string path = args.positional()[0];
  absl::StatusOr<std::string> bytes = ReadModelFile(path);
  if (!bytes.ok()) return Fail(1, std::string(bytes.status().message()));
  std::vector<c10::IValue> inputs;  // none: the plan is learned on the first run
  if (args.Given("inputs") || args.Given("input_spec")) {
    absl::StatusOr<std::vector<c10::IValue>> loaded = LoadInputs(args);
    if (!loaded.ok()) return Fail(1, std::string(loaded.status().message()));
    inputs = *std::move(loaded);
  }
  SetIntraOpThreads(args.Int("intra_op_threads"));
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<torch::jit::Module> module = LoadModuleFromBytes(*bytes);
  if (!module.ok()) return Fail(1, absl::StrCat("'", path, "' is ", module.status().message()));
  std::vector<std::vector<c10::IValue>> sets;
  if (!inputs.empty()) {
    absl::StatusOr<std::vector<c10::IValue>> arguments =
        ArgumentsFromInputs(std::move(inputs), ForwardSchema(*module));
    if (!arguments.ok()) return Fail(1, std::string(arguments.status().message()));
    sets.push_back(*std::move(arguments));
  }
  if (args.Given("warmup_shapes")) {
    for (const absl::string_view spec : absl::StrSplit(args.String("warmup_shapes"), '|')) {
      absl::StatusOr<std::vector<c10::IValue>> arguments =
          ParseInputSpec(std::string(spec), args.Int("seed"));
      if (arguments.ok()) {
        arguments = ArgumentsFromInputs(*std::move(arguments), ForwardSchema(*module));
      }
      if (!arguments.ok()) {
        return Fail(2,
                    absl::StrCat("--warmup-shapes '", spec, "': ", arguments.status().message()));
      }
      sets.push_back(*std::move(arguments));
    }
  }
  absl::StatusOr<StaticModule::Ptr> static_module =
      StaticModule::FromModule(*module, args.Bool("frozen"), options, SampleInputs::Sets(sets));
  if (!static_module.ok()) return Fail(1, std::string(static_module.status().message()));
  const double prepare_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  absl::Status saved = SavePackage(**static_module, args.String("out"), {path, Sha256Hex(*bytes)},
                                   args.Bool("packed_weights"));
  if (!saved.ok()) return Fail(1, std::string(saved.message()));
  const KernelCounts& kernels = (*static_module)->kernel_counts();
  std::cout
      << "model: " << path << "\n"
      << absl::StrFormat("prepared in %.1f ms: %d out variant, %d native, %d fallback nodes\n",
                         prepare_ms, kernels.out_variant, kernels.native, kernels.fallback)
      << (sets.empty()
              ? "memory plan: learned on the first run (no --inputs or --warmup-shapes given)\n"
              : absl::StrCat("memory plan: for ", sets.size(), " input set(s) (",
                             absl::StrJoin((*static_module)->planned_inputs(), ", "), ")\n"))
      << "wrote " << args.String("out") << "\n";
  return 0;
}

}  // namespace

Command CompileCommand() {
  return {
      "compile",
      "compile MODEL.pt [--inputs=FILE | --input-spec=SPEC] [--warmup-shapes=SPEC|SPEC|...] -o "
      "MODEL.srpkg [flags]",
      "prepares MODEL.pt once and writes it as a compiled package (prepared graph, constants, "
      "kernel choices and the memory plan for the given inputs) that loads without running any "
      "pass; bench, profile, explain and plan take a package (MODEL.srpkg) in place of a "
      "model, with the options it was compiled with.",
      Join(Join(
               {
                   {"out", FlagKind::kString, "", "the package to write (also -o FILE)"},
                   {"warmup_shapes", FlagKind::kString, "",
                    "more input specs, joined by |, each run once before the package is "
                    "written: the memory plan holds the largest, and with --packed-weights the "
                    "package keeps the weight layouts their shapes use"},
                   PackedWeightsFlag(),
               },
               ModelFlags({"inputs", "input_spec", "seed", "frozen", "intra_op_threads"})),
           OptionFlags()),
      CompileMain,
  };
}

}  // namespace sr
}  // namespace static_runtime
