#include "tools/sr/shape_sweep.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace static_runtime {
namespace sr {
namespace {

double TimedCallMs(const ModelCall& call, const std::vector<c10::IValue>& inputs) {
  const auto start = std::chrono::steady_clock::now();
  call(inputs);
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

double ResidentMiB() {
  std::ifstream statm("/proc/self/statm");
  size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) /
         (1024.0 * 1024.0);
}

ShapeSweepReport SweepShapes(const std::string& side, const ModelCall& call,
                             const SettleCall& settle,
                             const std::vector<std::vector<c10::IValue>>& inputs,
                             const std::vector<std::string>& names,
                             const ShapeSweepConfig& config) {
  ShapeSweepReport report;
  report.side = side;
  report.prepared_mib = ResidentMiB();
  for (size_t i = 0; i < inputs.size(); ++i) {
    SweptShape shape;
    shape.name = names[i];
    const double before = ResidentMiB();
    shape.first_ms = TimedCallMs(call, inputs[i]);
    if (settle) {
      const auto start = std::chrono::steady_clock::now();
      settle();
      shape.settle_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
    }
    shape.first_added_mib = ResidentMiB() - before;
    std::vector<double> steady;
    for (int k = 0; k < config.steady_calls; ++k) steady.push_back(TimedCallMs(call, inputs[i]));
    shape.steady_ms = Median(steady);
    report.shapes.push_back(shape);
  }
  report.after_shapes_mib = ResidentMiB();
  std::mt19937_64 random(config.seed);
  for (int k = 0; k < config.random_calls && !inputs.empty(); ++k) {
    call(inputs[random() % inputs.size()]);
  }
  report.random_calls = config.random_calls;
  report.after_random_mib = ResidentMiB();
  return report;
}

std::string FormatShapeSweep(const ShapeSweepReport& report) {
  std::string text = absl::StrFormat("%s: resident after preparation %.1f MiB\n", report.side,
                                     report.prepared_mib);
  absl::StrAppendFormat(&text, "  %-40s %10s %10s %10s %8s %12s\n", "shape", "first ms",
                        "settle ms", "steady ms", "first/st", "added MiB");
  for (const SweptShape& shape : report.shapes) {
    absl::StrAppendFormat(&text, "  %-40s %10.2f %10.2f %10.3f %8.1f %12.1f\n", shape.name,
                          shape.first_ms, shape.settle_ms, shape.steady_ms,
                          shape.steady_ms > 0 ? shape.first_ms / shape.steady_ms : 0.0,
                          shape.first_added_mib);
  }
  absl::StrAppendFormat(&text,
                        "  resident after every shape %.1f MiB, after %d calls at random shapes "
                        "%.1f MiB\n",
                        report.after_shapes_mib, report.random_calls, report.after_random_mib);
  return text;
}

std::string ShapeSweepJson(const ShapeSweepReport& report) {
  std::vector<std::string> shapes;
  for (const SweptShape& shape : report.shapes) {
    shapes.push_back(absl::StrFormat(
        R"({"shape": "%s", "first_ms": %.4f, "settle_ms": %.4f, "steady_ms": %.4f, )"
        R"("first_added_mib": %.2f})",
        shape.name, shape.first_ms, shape.settle_ms, shape.steady_ms, shape.first_added_mib));
  }
  return absl::StrFormat(
      R"({"side": "%s", "prepared_mib": %.2f, "shapes": [%s], "after_shapes_mib": %.2f, )"
      R"("random_calls": %d, "after_random_mib": %.2f})",
      report.side, report.prepared_mib, absl::StrJoin(shapes, ", "), report.after_shapes_mib,
      report.random_calls, report.after_random_mib);
}

}  // namespace sr
}  // namespace static_runtime
