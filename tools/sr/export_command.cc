// sr export: the model and its inputs as files Python loads.
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "errors/status_from_exception.h"
#include "tools/sr/command.h"
#include "tools/sr/run_setup.h"
#include "torch/csrc/jit/serialization/pickle.h"

namespace static_runtime {
namespace sr {
namespace {

int ExportMain(const Args& args) {
  if (!args.Given("model_out") || !args.Given("inputs_out")) {
    return Fail(2, "export needs --model-out=FILE and --inputs-out=FILE");
  }
  RunSetup setup;
  if (IsPackage(args)) return Fail(2, "export takes a model file, not a compiled package");
  if (int code = PrepareRun(args, "export", setup)) return code;
  try {
    setup.module.save(args.String("model_out"));
  } catch (const std::exception& e) {
    return Fail(1, std::string(StatusFromException(
                                   e, absl::StrCat("cannot write ", args.String("model_out"), ": "))
                                   .message()));
  }
  const std::vector<char> pickled =
      torch::jit::pickle_save(c10::ivalue::Tuple::create(setup.inputs));
  if (int code = WriteIfGiven(args, "inputs_out", std::string(pickled.begin(), pickled.end()))) {
    return code;
  }
  std::cout << "model: " << setup.model_name << "\nwrote " << args.String("model_out") << " and "
            << args.String("inputs_out") << "\n";
  return 0;
}

}  // namespace

Command ExportCommand() {
  return {
      "export",
      "export [MODEL.pt] --model-out=FILE --inputs-out=FILE [flags]",
      "writes the model and its inputs as files Python loads with torch.jit.load and "
      "torch.load (for tools/compare_pytorch_sr.py).",
      Join(
          {
              {"model_out", FlagKind::kString, "", "write the model (torch.jit.save format)"},
              {"inputs_out", FlagKind::kString, "", "write the inputs (torch.save format)"},
          },
          RunFlags()),
      ExportMain,
  };
}

}  // namespace sr
}  // namespace static_runtime
