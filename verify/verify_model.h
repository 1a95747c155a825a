// `sr verify`: does the static runtime give the JIT's answers for this model?
// For every option set (the flags as given, then each of the harness's
// standard sets: verify/option_sets.h) one runtime runs the input sets in
// turn, twice over, and each run is checked (verify/run_check.h):
//   - outputs equal the JIT interpreter's (whole structure; float tolerance
//     only as the harness allows, see verify/reference.h; with
//     prepack_weights, whose kernels have declared bounds and whose freezing
//     folds batch norms, Tolerance::kWholeModel),
//   - every kernel of ours gives its node's JIT operator's result, bit for bit
//     or within the kernel's declared error bound,
//   - the inputs are unmodified and nothing is held after ReleaseOutputs,
//   - an output held from the previous run is unchanged by this one (not
//     with managed output tensors, which a run may reuse by contract).
// A model the runtime cannot prepare is one failed check with the reason.
#ifndef STATIC_RUNTIME_VERIFY_VERIFY_MODEL_H_
#define STATIC_RUNTIME_VERIFY_VERIFY_MODEL_H_

#include <string>
#include <vector>

#include "ATen/core/ivalue.h"
#include "options/options.h"
#include "torch/csrc/jit/api/module.h"

namespace static_runtime {
namespace verify {

struct InputSet {
  std::string name;  // e.g. "inputs.pt" or "spec 'f32[8,4]' seed 1"
  std::vector<c10::IValue> inputs;
};

struct VerifyConfig {
  std::vector<InputSet> input_sets;  // at least one
  Options options;                   // "as given"; the standard sets follow
  bool is_frozen = false;
  int rounds = 2;  // passes over the input sets per runtime
};

struct VerifyFailure {
  std::string option_set;
  int run = 0;  // 1-based, on that option set's runtime; 0: preparing it
  std::string input_set;
  std::string check;   // which check
  std::string detail;  // what differed (output path, element, values)
};

struct VerifyReport {
  int option_sets = 0;
  int runs = 0;    // runs checked
  int checks = 0;  // individual checks made
  std::vector<VerifyFailure> failures;
  // What passed but a user should know (the model writes to its inputs).
  std::vector<std::string> warnings;
  bool passed() const { return failures.empty() && runs > 0; }
};

VerifyReport Verify(const torch::jit::Module& module, const VerifyConfig& config);

// Human-readable, and JSON ({"model", "passed", "option_sets", "runs",
// "checks", "failures": [{"option_set", "run", "input_set", "check",
// "detail"}], "warnings": [...]}).
std::string FormatVerifyReport(const VerifyReport& report, const std::string& model);
std::string VerifyReportJson(const VerifyReport& report, const std::string& model);

}  // namespace verify
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_VERIFY_VERIFY_MODEL_H_
