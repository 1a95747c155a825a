// sr verify: the model against the JIT under every option set.
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "errors/status_macros.h"
#include "load/load.h"
#include "tools/intra_op_threads.h"
#include "tools/sr/command.h"
#include "tools/sr/input_spec.h"
#include "tools/sr/inputs_file.h"
#include "tools/sr/run_setup.h"
#include "verify/verify_model.h"

namespace static_runtime {
namespace sr {
namespace {

using verify::InputSet;
using verify::VerifyConfig;
using verify::VerifyReport;

// verify's input sets: each file of --inputs (comma separated), and each
// alternative of --input-spec ('|' separated) with --seeds seeds.
absl::StatusOr<std::vector<InputSet>> VerifyInputSets(const Args& args,
                                                      const c10::FunctionSchema& schema) {
  std::vector<InputSet> sets;
  if (args.Given("inputs")) {
    for (absl::string_view file : absl::StrSplit(args.String("inputs"), ',', absl::SkipEmpty())) {
      ASSIGN_OR_RETURN(std::vector<c10::IValue> inputs, LoadInputsFile(std::string(file)));
      ASSIGN_OR_RETURN(inputs, ArgumentsFromInputs(std::move(inputs), schema));
      sets.push_back({std::string(file), std::move(inputs)});
    }
  }
  if (args.Given("input_spec")) {
    if (args.Int("seeds") < 1) return absl::InvalidArgumentError("--seeds must be >= 1");
    for (absl::string_view spec :
         absl::StrSplit(args.String("input_spec"), '|', absl::SkipWhitespace())) {
      for (int seed = 0; seed < args.Int("seeds"); ++seed) {
        ASSIGN_OR_RETURN(std::vector<c10::IValue> inputs,
                         ParseInputSpec(std::string(absl::StripAsciiWhitespace(spec)), seed));
        sets.push_back({absl::StrCat("spec '", absl::StripAsciiWhitespace(spec), "' seed ", seed),
                        std::move(inputs)});
      }
    }
  }
  if (sets.empty()) {
    return absl::InvalidArgumentError(
        "verify needs --inputs=FILE[,FILE...] and/or --input-spec=SPEC");
  }
  return sets;
}

int VerifyMain(const Args& args) {
  if (args.positional().size() != 1) return Fail(2, "verify takes one model file");
  std::string model_name;
  absl::StatusOr<torch::jit::Module> module = LoadModel(args, model_name);
  if (!module.ok()) return Fail(1, std::string(module.status().message()));
  VerifyConfig config;
  config.options = OptionsFrom(args);
  absl::Status valid = ValidateOptions(config.options);
  if (!valid.ok()) return Fail(2, std::string(valid.message()));
  config.is_frozen = args.Bool("frozen");
  absl::StatusOr<std::vector<InputSet>> input_sets = VerifyInputSets(args, ForwardSchema(*module));
  if (!input_sets.ok()) {
    return Fail(input_sets.status().code() == absl::StatusCode::kInvalidArgument ? 2 : 1,
                std::string(input_sets.status().message()));
  }
  config.input_sets = *std::move(input_sets);
  SetIntraOpThreads(args.Int("intra_op_threads"));
  const VerifyReport report = verify::Verify(*module, config);
  std::cout << verify::FormatVerifyReport(report, model_name);
  if (int code = WriteIfGiven(args, "json", verify::VerifyReportJson(report, model_name))) {
    return code;
  }
  return report.passed() ? 0 : 1;
}

}  // namespace

Command VerifyCommand() {
  return {
      "verify",
      "verify MODEL.pt --inputs=FILE[,FILE...] | --input-spec=SPEC[|SPEC...] [--seeds=N]",
      "checks the model against the JIT under every option set, on every input set, and exits "
      "0 only if every check passes.",
      Join(Join(
               {
                   {"seeds", FlagKind::kInt, "2", "seeds per --input-spec alternative"},
                   {"json", FlagKind::kString, "", "also write the report as JSON to this file"},
               },
               ModelFlags({"inputs", "input_spec", "frozen", "intra_op_threads"})),
           OptionFlags()),
      VerifyMain,
  };
}

}  // namespace sr
}  // namespace static_runtime
