#include "verify/verify_model.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "ir/graph_util.h"
#include "load/load.h"
#include "nlohmann/json.hpp"
#include "runtime/static_runtime.h"
#include "torch/csrc/jit/ir/alias_analysis.h"
#include "torch/csrc/jit/passes/inliner.h"
#include "verify/option_sets.h"
#include "verify/reference.h"
#include "verify/run_check.h"

namespace static_runtime {
namespace verify {
namespace {

constexpr char kWritesInputs[] =
    "the model writes to its inputs in place: as with the JIT, a caller's tensors, lists and "
    "dicts change (the runtime's changes equal the JIT's)";
constexpr char kChangesHeldOutputs[] =
    "the model changes outputs of earlier runs a caller still holds, as the JIT's runs do";

// Adds `warning` to the report unless it is there already.
void WarnOnce(VerifyReport& report, const std::string& warning) {
  if (std::find(report.warnings.begin(), report.warnings.end(), warning) == report.warnings.end()) {
    report.warnings.push_back(warning);
  }
}

// The flags as given, then every standard set but the defaults.
std::vector<golden::OptionSet> OptionSetsFor(const Options& given) {
  std::vector<golden::OptionSet> sets = {{"as given", given}};
  for (const golden::OptionSet& set : golden::OptionSets()) {
    if (set.name != "defaults") sets.push_back(set);
  }
  return sets;
}

// How many batch norms `graph` computes (its sub-blocks' included).
int BatchNorms(torch::jit::Graph& graph) {
  int count = 0;
  for (const torch::jit::Node* node : AllNodes(graph.block())) {
    if (node->kind() == c10::aten::batch_norm) ++count;
  }
  return count;
}

// A copy of the model's forward graph, its calls inlined.
std::shared_ptr<torch::jit::Graph> InlinedForward(const torch::jit::Module& module) {
  std::shared_ptr<torch::jit::Graph> graph =
      module.get_method(ForwardMethodName(module)).graph()->copy();
  torch::jit::Inline(*graph);
  return graph;
}

// Whether `graph` (a forward, its calls inlined) changes its module's state
// from run to run: it sets an attribute, or writes in place to a value it
// read from one (a buffer it accumulates into).
bool ChangesModuleState(const std::shared_ptr<torch::jit::Graph>& graph) {
  torch::jit::ValueSet read;  // what the graph reads from attributes
  for (const torch::jit::Node* node : AllNodes(graph->block())) {
    if (node->kind() == c10::prim::SetAttr) return true;
    if (node->kind() == c10::prim::GetAttr) read.insert(node->output());
  }
  if (read.empty()) return false;
  const torch::jit::AliasDb aliases(graph);
  for (torch::jit::Node* node : AllNodes(graph->block())) {
    if (aliases.writesToAlias(node, read)) return true;
  }
  return false;
}

}  // namespace

VerifyReport Verify(const torch::jit::Module& module, const VerifyConfig& config) {
  VerifyReport report;
  torch::jit::Module jit = module.clone();  // the reference; runs on copies of the inputs
  jit.eval();
  bool explained_difference = false;  // warned once
  const std::shared_ptr<torch::jit::Graph> forward = InlinedForward(jit);
  const int batch_norms = BatchNorms(*forward);
  // A model that changes its own state: both sides start each option set
  // from the saved state and run in step; the node-by-node check, another
  // run, runs on a runtime of its own.
  const bool changes_state = ChangesModuleState(forward);
  if (changes_state) {
    report.warnings.push_back(
        "the model changes its own attributes (prim::SetAttr, or an in-place write to an "
        "attribute): each option set starts the JIT and the runtime from the model's saved "
        "state and compares their runs in order; the node-by-node check runs on a runtime of "
        "its own, from another copy of the model");
  }
  // Input sets the JIT itself raises on: reported once, left out after.
  std::vector<bool> jit_raises(config.input_sets.size(), false);
  for (const golden::OptionSet& set : OptionSetsFor(config.options)) {
    ++report.option_sets;
    auto fail = [&](int run, const std::string& input_set, std::string check,
                    absl::string_view detail) {
      report.failures.push_back({set.name, run, input_set, std::move(check), std::string(detail)});
    };
    ++report.checks;
    if (changes_state && report.option_sets > 1) {
      jit = module.clone();
      jit.eval();
    }
    // Each runtime of a model that changes its own state has a copy of it.
    auto prepare = [&] {
      return StaticModule::FromModule(changes_state ? module.clone() : module, config.is_frozen,
                                      set.options);
    };
    absl::StatusOr<StaticModule::Ptr> static_module = prepare();
    if (!static_module.ok()) {
      fail(0, "", "the runtime prepares the model", static_module.status().message());
      continue;
    }
    StaticRuntime runtime(*static_module);
    std::unique_ptr<StaticRuntime> own_node_runtime;
    if (changes_state) {
      absl::StatusOr<StaticModule::Ptr> copy = prepare();
      if (!copy.ok()) {
        fail(0, "", "the runtime prepares the model", copy.status().message());
        continue;
      }
      own_node_runtime = std::make_unique<StaticRuntime>(*copy);
    }
    StaticRuntime& node_runtime = own_node_runtime ? *own_node_runtime : runtime;
    // Weights pre-packed: batch norms folded into convolutions, another
    // rounding than the JIT's (declared as kernels' bounds are).
    const int folded_batch_norms =
        set.options.prepack_weights ? batch_norms - BatchNorms(*(*static_module)->graph()) : 0;
    const bool outputs_may_be_held = !set.options.manage_output_tensors;
    c10::IValue held, held_copy;          // the previous run's output, and a copy of it
    c10::IValue jit_held, jit_held_copy;  // the same of the JIT's run
    std::string held_from;
    int run = 0;
    for (int round = 0; round < config.rounds; ++round) {
      for (size_t set_index = 0; set_index < config.input_sets.size(); ++set_index) {
        const InputSet& input_set = config.input_sets[set_index];
        ++run;
        if (jit_raises[set_index]) continue;
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
        if (golden::JitRaised(same)) {
          jit_raises[set_index] = true;
          fail(run, input_set.name,
               "the JIT interpreter runs the model on these inputs (they are left out of the "
               "other runs and option sets)",
               same.message());
          continue;
        }
        if (wrote_inputs) WarnOnce(report, kWritesInputs);
        const absl::StatusOr<golden::NodeCheckCounts> nodes =
            golden::CheckNodesAgainstJit(node_runtime, *inputs);
        if (!nodes.ok()) {
          fail(run, input_set.name, "every kernel gives its node's JIT result",
               nodes.status().message());
        }
        // Outputs beyond the whole-model tolerance, from a run whose every
        // node gave its JIT operator's result on intact inputs, and whose
        // only other arithmetic is declared rounding (kernels' bounds, folded
        // batch norms): that rounding changed a discrete choice downstream.
        const bool explained = golden::OutputsDiffer(same) && nodes.ok() &&
                               (nodes->bounded > 0 || folded_batch_norms > 0);
        if (explained && !explained_difference) {
          explained_difference = true;
          report.warnings.push_back(absl::StrCat(
              "outputs differ from the JIT's beyond the whole-model tolerance (first: [", set.name,
              "] run ", run, ": ", same.message(),
              "), yet every node gave its JIT operator's result on the values the nodes before "
              "it made, bit for bit, or within its kernel's declared bound (",
              nodes->bounded, " calls), ", folded_batch_norms,
              " batch norms folded into convolutions: that rounding changed a discrete choice "
              "downstream (a sort, a top-k, a threshold); --prepack-weights=false runs the "
              "JIT's arithmetic"));
        } else if (!same.ok() && !explained) {
          fail(run, input_set.name,
               "outputs and inputs after the run equal the JIT's, nothing held after the run",
               same.message());
        }
        if (outputs_may_be_held && !held_from.empty()) {
          ++report.checks;
          if (!reference::ExactlyEqual(held_copy, held)) {
            // A model may change what it returned before (RAFT does): the
            // JIT's own held output changes too.
            if (!reference::ExactlyEqual(jit_held_copy, jit_held)) {
              WarnOnce(report, kChangesHeldOutputs);
            } else {
              fail(run, input_set.name, "an output held from the previous run is unchanged",
                   absl::StrCat("the output of run ", run - 1, " (", held_from,
                                ") changed during this run"));
            }
          }
        }
        if (outputs_may_be_held && (same.ok() || explained)) {
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

}  // namespace verify
}  // namespace static_runtime
