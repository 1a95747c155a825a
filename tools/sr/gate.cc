#include "tools/sr/gate.h"

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "errors/status_macros.h"
#include "nlohmann/json.hpp"

namespace static_runtime {
namespace sr {
namespace {

absl::Status AddReport(const std::string& file, const nlohmann::json& report,
                       std::map<std::string, double>& ratios) {
  if (!report.is_object() || !report.contains("model") || !report["model"].is_string()) {
    return absl::InvalidArgumentError(
        absl::StrCat(file, ": a report without a \"model\" name (not sr bench --json output?)"));
  }
  const std::string model = report["model"].get<std::string>();
  if (!report.contains("ratio") || !report["ratio"].is_number()) {
    return absl::InvalidArgumentError(
        absl::StrCat(file, ": the report of ", model,
                     " has no \"ratio\" (static / JIT; was the JIT timed? --time-jit=false "
                     "leaves it out)"));
  }
  if (!ratios.emplace(model, report["ratio"].get<double>()).second) {
    return absl::InvalidArgumentError(absl::StrCat(file, ": model ", model, " is reported twice"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::map<std::string, double>> ReadRatios(const std::vector<std::string>& files) {
  std::map<std::string, double> ratios;
  for (const std::string& file : files) {
    std::ifstream stream(file, std::ios::binary);
    if (!stream) return absl::InvalidArgumentError(absl::StrCat("cannot read ", file));
    std::stringstream text;
    text << stream.rdbuf();
    const nlohmann::json json =
        nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded()) {
      return absl::InvalidArgumentError(absl::StrCat(file, ": not valid JSON"));
    }
    if (json.is_array()) {
      for (const nlohmann::json& report : json) {
        RETURN_IF_ERROR(AddReport(file, report, ratios));
      }
    } else {
      RETURN_IF_ERROR(AddReport(file, json, ratios));
    }
  }
  return ratios;
}

GateResult Gate(const std::map<std::string, double>& baseline,
                const std::map<std::string, double>& current, double max_regression_percent) {
  GateResult result;
  std::map<std::string, GateRow> rows;
  for (const auto& [model, ratio] : baseline) rows[model].baseline = ratio;
  for (const auto& [model, ratio] : current) rows[model].current = ratio;
  for (auto& [model, row] : rows) {
    row.model = model;
    if (!row.current) {
      row.verdict = "MISSING";
      result.passed = false;
    } else if (!row.baseline) {
      row.verdict = "new";
    } else {
      row.change_percent = (*row.current / *row.baseline - 1) * 100;
      if (row.change_percent > max_regression_percent) {
        row.verdict = "REGRESSION";
        result.passed = false;
      } else {
        row.verdict = row.change_percent < -max_regression_percent ? "improved" : "ok";
      }
    }
    result.rows.push_back(row);
  }
  return result;
}

std::string FormatGate(const GateResult& result, double max_regression_percent) {
  auto ratio = [](const std::optional<double>& value) {
    return value ? absl::StrFormat("%.3f", *value) : std::string("-");
  };
  std::string text = absl::StrFormat("%-28s %10s %10s %9s  %s\n", "model (static / jit)",
                                     "baseline", "current", "change", "verdict");
  for (const GateRow& row : result.rows) {
    const std::string change = row.baseline && row.current
                                   ? absl::StrFormat("%+.1f%%", row.change_percent)
                                   : std::string("-");
    absl::StrAppendFormat(&text, "%-28s %10s %10s %9s  %s\n", row.model, ratio(row.baseline),
                          ratio(row.current), change, row.verdict);
  }
  absl::StrAppendFormat(&text, "gate: %s (a ratio may grow by at most %.1f%%)\n",
                        result.passed ? "PASSED" : "FAILED", max_regression_percent);
  return text;
}

}  // namespace sr
}  // namespace static_runtime
