// sr sweep: first calls, steady calls and resident memory across input
// shapes, for one side (ours or PyTorch's Static Runtime) per process.
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "execution/background_work.h"
#include "load/load.h"
#include "runtime/reports/explain.h"
#include "runtime/static_runtime.h"
#include "tools/intra_op_threads.h"
#include "tools/sr/command.h"
#include "tools/sr/input_spec.h"
#include "tools/sr/inputs_file.h"
#include "tools/sr/pytorch_sr.h"
#include "tools/sr/run_setup.h"
#include "tools/sr/shape_sweep.h"

namespace static_runtime {
namespace sr {
namespace {

int SweepMain(const Args& args) {
  if (args.positional().size() != 1) return Fail(2, "sweep takes one model file");
  if (!args.Given("shapes")) return Fail(2, "sweep needs --shapes=SPEC|SPEC|...");
  const std::string side = args.String("side");
  if (side != "ours" && side != "pytorch-sr") {
    return Fail(2, absl::StrCat("--side=", side, ": ours or pytorch-sr"));
  }
  ShapeSweepConfig config;
  config.steady_calls = static_cast<int>(args.Int("steady_calls"));
  config.random_calls = static_cast<int>(args.Int("random_calls"));
  config.seed = static_cast<uint64_t>(args.Int("seed"));
  if (config.steady_calls < 1 || config.random_calls < 0) {
    return Fail(2, "--steady-calls must be >= 1 and --random-calls >= 0");
  }
  const std::string path = args.positional()[0];
  absl::StatusOr<torch::jit::Module> module = LoadModuleFromFile(path);
  if (!module.ok()) return Fail(1, std::string(module.status().message()));
  std::vector<std::string> names = absl::StrSplit(args.String("shapes"), '|');
  std::vector<std::vector<c10::IValue>> inputs;
  for (const std::string& name : names) {
    absl::StatusOr<std::vector<c10::IValue>> parsed = ParseInputSpec(name, config.seed);
    if (parsed.ok()) parsed = ArgumentsFromInputs(*std::move(parsed), ForwardSchema(*module));
    if (!parsed.ok())
      return Fail(2, absl::StrCat("--shapes '", name, "': ", parsed.status().message()));
    inputs.push_back(*std::move(parsed));
  }
  SetIntraOpThreads(args.Int("intra_op_threads"));
  const Options options = OptionsFrom(args);
  const bool frozen = args.Bool("frozen");
  ModelCall call;
  std::unique_ptr<StaticRuntime> ours;
  std::unique_ptr<PyTorchStaticRuntime> theirs;
  if (side == "ours") {
    absl::StatusOr<StaticModule::Ptr> prepared = StaticModule::FromModule(*module, frozen, options);
    if (!prepared.ok()) return Fail(1, std::string(prepared.status().message()));
    ours = std::make_unique<StaticRuntime>(*prepared);
    call = [&](const std::vector<c10::IValue>& arguments) {
      absl::StatusOr<c10::IValue> result = ours->Run(arguments);
      if (!result.ok()) throw std::runtime_error(std::string(result.status().message()));
    };
  } else {
    absl::StatusOr<std::unique_ptr<PyTorchStaticRuntime>> prepared =
        PyTorchStaticRuntime::Create(*module, frozen, options);
    if (!prepared.ok()) return Fail(1, std::string(prepared.status().message()));
    theirs = *std::move(prepared);
    call = [&](const std::vector<c10::IValue>& arguments) { (*theirs)(arguments); };
  }
  ShapeSweepReport report;
  try {
    report = SweepShapes(side, call, side == "ours" ? SettleCall(WaitForBackgroundWork) : nullptr,
                         inputs, names, config);
  } catch (const std::exception& error) {
    return Fail(1, absl::StrCat(side, " failed: ", error.what()));
  }
  std::cout << "model: " << path << "\n" << FormatShapeSweep(report);
  if (ours != nullptr) {
    std::cout << reports::FormatKernelCaches(ours->module().KernelCaches(),
                                             options.shape_plans_per_kernel)
              << "\n";
  }
  return WriteIfGiven(args, "json", ShapeSweepJson(report) + "\n");
}

}  // namespace

Command SweepCommand() {
  return {
      "sweep",
      "sweep MODEL.pt --shapes=SPEC|SPEC|... [--side=ours|pytorch-sr] [flags]",
      "calls the model at each input shape in turn (its first call: time and resident memory "
      "added; then steady calls) and then at shapes drawn at random, on one runtime of one "
      "side; run each side in its own process to compare their memory.",
      Join(Join(
               {
                   {"shapes", FlagKind::kString, "",
                    "input specs, one per shape, joined by | (see docs/sr_tool.md)"},
                   {"side", FlagKind::kString, "ours", "ours or pytorch-sr"},
                   {"steady_calls", FlagKind::kInt, "10", "calls per shape after its first"},
                   {"random_calls", FlagKind::kInt, "200", "calls at shapes drawn at random"},
                   {"json", FlagKind::kString, "", "also write the report as JSON to this file"},
               },
               ModelFlags({"seed", "frozen", "intra_op_threads"})),
           OptionFlags()),
      SweepMain,
  };
}

}  // namespace sr
}  // namespace static_runtime
