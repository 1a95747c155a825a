// `sr gate`: compares two sets of benchmark reports (sr bench --json) model
// by model on their static / JIT median ratio, which is stable across
// machines where absolute times are not. A model whose ratio grew by more
// than the allowed percentage is a regression; a model of the baseline
// missing from the current reports fails too; a model only in the current
// reports is new.
#ifndef STATIC_RUNTIME_TOOLS_SR_GATE_H_
#define STATIC_RUNTIME_TOOLS_SR_GATE_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace static_runtime {
namespace sr {

// Model -> static / JIT ratio from report files, each one report object or a
// JSON array of them. InvalidArgument names the file and what is wrong
// (unreadable, malformed JSON, no "model" or "ratio", a model twice).
absl::StatusOr<std::map<std::string, double>> ReadRatios(const std::vector<std::string>& files);

struct GateRow {
  std::string model;
  std::optional<double> baseline, current;  // ratios
  double change_percent = 0;                // (current / baseline - 1) * 100
  std::string verdict;                      // "ok", "improved", "REGRESSION", "MISSING", "new"
};

struct GateResult {
  std::vector<GateRow> rows;  // by model name
  bool passed = true;         // no regression, nothing missing
};

GateResult Gate(const std::map<std::string, double>& baseline,
                const std::map<std::string, double>& current, double max_regression_percent);

std::string FormatGate(const GateResult& result, double max_regression_percent);

}  // namespace sr
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_TOOLS_SR_GATE_H_
