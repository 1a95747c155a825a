#include "tools/sr/verify.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "golden/option_sets.h"
#include "golden/reference.h"
#include "golden/run_check.h"
#include "nlohmann/json.hpp"
#include "runtime/static_runtime.h"

namespace static_runtime {
namespace sr {
namespace {

constexpr char kChangesHeldOutputs[] =
    "the model changes outputs of earlier runs a caller still holds, as the JIT's runs do";

// The flags as given, then every standard set but the defaults.
std::vector<golden::OptionSet> OptionSetsFor(const Options& given) {
  std::vector<golden::OptionSet> sets = {{"as given", given}};
  for (const golden::OptionSet& set : golden::OptionSets()) {
    if (set.name != "defaults") sets.push_back(set);
  }
  return sets;
}

}  // namespace

VerifyReport Verify(const torch::jit::Module& module, const VerifyConfig& config) {
  VerifyReport report;
  torch::jit::Module jit = module.clone();  // the reference; runs on copies of the inputs
  jit.eval();
  for (const golden::OptionSet& set : OptionSetsFor(config.options)) {
    ++report.option_sets;
    auto fail = [&](int run, const std::string& input_set, std::string check,
                    absl::string_view detail) {
      report.failures.push_back({set.name, run, input_set, std::move(check), std::string(detail)});
    };
    ++report.checks;
    absl::StatusOr<StaticModule::Ptr> static_module =
        StaticModule::FromModule(module, config.is_frozen, set.options);
    if (!static_module.ok()) {
      fail(0, "", "the runtime prepares the model", static_module.status().message());
      continue;
    }
    StaticRuntime runtime(*static_module);
    const bool outputs_may_be_held = !set.options.manage_output_tensors;
    c10::IValue held, held_copy;          // the previous run's output, and a copy of it
    c10::IValue jit_held, jit_held_copy;  // the same of the JIT's run
    std::string held_from;
    int run = 0;
    for (int round = 0; round < config.rounds; ++round) {
      for (const InputSet& input_set : config.input_sets) {
        ++run;
        // Both sides get the inputs bound to the schema (loosely typed
        // containers from torch.save files retyped), as sr bench does.
        ++report.checks;
        absl::StatusOr<std::vector<c10::IValue>> inputs =
            (*static_module)->Bind(input_set.inputs, {});
        if (!inputs.ok()) {
          fail(run, input_set.name, "the inputs fit the model's arguments",
               inputs.status().message());
          continue;
        }
        ++report.runs;
        c10::IValue output, jit_output;
        report.checks += 2;
        bool wrote_inputs = false;
        // Pre-packed weights: kernels within declared bounds and folded
        // batch norms, whose differences compound over a deep model (the
        // node-by-node check below holds each kernel to its own bound).
        const absl::Status same = golden::CheckRunAgainstJit(
            jit, runtime, *inputs, golden::WhenTheJitRaises::kFail, &output, &wrote_inputs,
            set.options.prepack_weights ? reference::Tolerance::kWholeModel
                                        : reference::Tolerance::kDtypeDefault,
            &jit_output);
        if (wrote_inputs && report.warnings.empty()) {
          report.warnings.push_back(
              "the model writes to its inputs in place: as with the JIT, a caller's tensors, "
              "lists and dicts change (the runtime's changes equal the JIT's)");
        }
        if (!same.ok()) {
          fail(run, input_set.name,
               "outputs and inputs after the run equal the JIT's, nothing held after the run",
               same.message());
        }
        const absl::StatusOr<int> nodes = golden::CheckNodesAgainstJit(runtime, *inputs);
        if (!nodes.ok()) {
          fail(run, input_set.name, "every kernel gives its node's JIT result",
               nodes.status().message());
        }
        if (outputs_may_be_held && !held_from.empty()) {
          ++report.checks;
          if (!reference::ExactlyEqual(held_copy, held)) {
            // A model may change what it returned before (RAFT does): the
            // JIT's own held output changes too.
            if (!reference::ExactlyEqual(jit_held_copy, jit_held)) {
              if (std::find(report.warnings.begin(), report.warnings.end(), kChangesHeldOutputs) ==
                  report.warnings.end()) {
                report.warnings.push_back(kChangesHeldOutputs);
              }
            } else {
              fail(run, input_set.name, "an output held from the previous run is unchanged",
                   absl::StrCat("the output of run ", run - 1, " (", held_from,
                                ") changed during this run"));
            }
          }
        }
        if (outputs_may_be_held && same.ok()) {
          held = output;
          held_copy = reference::DeepCopy(output);
          jit_held = jit_output;
          jit_held_copy = reference::DeepCopy(jit_output);
          held_from = input_set.name;
        }
        runtime.ReleaseOutputs();
      }
    }
  }
  return report;
}

std::string FormatVerifyReport(const VerifyReport& report, const std::string& model) {
  std::string text = absl::StrCat("model: ", model, "\n");
  const VerifyFailure* previous = nullptr;
  for (const VerifyFailure& failure : report.failures) {
    const bool same = previous != nullptr && previous->check == failure.check &&
                      previous->detail == failure.detail;
    absl::StrAppend(&text, "FAILED [", failure.option_set, "]",
                    failure.run > 0
                        ? absl::StrCat(" run ", failure.run, " (", failure.input_set, ")")
                        : std::string(),
                    ": ", failure.check,
                    same ? " (the same as above)\n" : absl::StrCat("\n    ", failure.detail, "\n"));
    previous = &failure;
  }
  for (const std::string& warning : report.warnings)
    absl::StrAppend(&text, "warning: ", warning, "\n");
  absl::StrAppend(&text, "verify: ", report.option_sets, " option sets, ", report.runs, " runs, ",
                  report.checks, " checks, ", report.failures.size(),
                  " failed: ", report.passed() ? "PASSED" : "FAILED", "\n");
  return text;
}

std::string VerifyReportJson(const VerifyReport& report, const std::string& model) {
  nlohmann::json failures = nlohmann::json::array();
  for (const VerifyFailure& failure : report.failures) {
    failures.push_back({{"option_set", failure.option_set},
                        {"run", failure.run},
                        {"input_set", failure.input_set},
                        {"check", failure.check},
                        {"detail", failure.detail}});
  }
  const nlohmann::json json = {{"model", model},
                               {"passed", report.passed()},
                               {"option_sets", report.option_sets},
                               {"runs", report.runs},
                               {"checks", report.checks},
                               {"failures", failures},
                               {"warnings", report.warnings}};
  return json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace sr
}  // namespace static_runtime
