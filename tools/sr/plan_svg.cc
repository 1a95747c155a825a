#include "tools/sr/plan_svg.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace static_runtime {
namespace sr {
namespace {

std::string Bytes(size_t bytes) {
  if (bytes >= (1u << 20)) return absl::StrFormat("%.1f MiB", bytes / 1048576.0);
  if (bytes >= 1024) return absl::StrFormat("%.1f KiB", bytes / 1024.0);
  return absl::StrCat(bytes, " B");
}

}  // namespace

std::string PlanSvg(const MemoryPlanDescription& plan) {
  size_t nodes = 1;
  for (const MemoryPlanDescription::Tensor& tensor : plan.tensors) {
    nodes = std::max(nodes, tensor.last_node + 1);
  }
  const size_t arena = std::max<size_t>(plan.planned_bytes, 1);
  const size_t lower_bound = plan.stats.lower_bound_bytes;

  const double left = 70, top = 40, width = 900, height = 500;
  const double x_scale = width / nodes;
  const double y_scale = height / arena;
  std::string svg = absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
      "font-family=\"sans-serif\" font-size=\"11\">\n"
      "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
      "<text x=\"%.0f\" y=\"20\" font-size=\"14\">memory plan: %d tensors, arena %s, "
      "lower bound %s</text>\n"
      "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" "
      "stroke=\"black\"/>\n",
      left + width + 20, top + height + 50, left, plan.tensors.size(), Bytes(plan.planned_bytes),
      Bytes(lower_bound), left, top, width, height);
  for (size_t i = 0; i < plan.tensors.size(); ++i) {
    const MemoryPlanDescription::Tensor& tensor = plan.tensors[i];
    if (tensor.bytes == 0) continue;
    const double x = left + tensor.first_node * x_scale;
    const double y = top + tensor.offset * y_scale;
    const double w = (tensor.last_node + 1 - tensor.first_node) * x_scale;
    const double h = std::max(1.0, tensor.bytes * y_scale);
    const std::string label = absl::StrCat(tensor.producer, " ", Bytes(tensor.bytes));
    absl::StrAppendFormat(
        &svg,
        "<g><title>%s, nodes %d-%d, offset %d</title>"
        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"hsl(%d,60%%,75%%)\" "
        "stroke=\"black\" stroke-width=\"0.5\"/>",
        label, tensor.first_node, tensor.last_node, tensor.offset, x, y, w, h, (i * 47) % 360);
    if (h >= 12 && w >= 40) {
      absl::StrAppendFormat(&svg, "<text x=\"%.1f\" y=\"%.1f\">%s</text>", x + 3, y + 11, label);
    }
    absl::StrAppend(&svg, "</g>\n");
  }
  const double bound_y = top + lower_bound * y_scale;
  absl::StrAppendFormat(&svg,
                        "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"red\" "
                        "stroke-dasharray=\"6,4\"/>\n"
                        "<text x=\"%.0f\" y=\"%.1f\" fill=\"red\">lower bound</text>\n",
                        left, bound_y, left + width, bound_y, left + width - 70, bound_y - 3);
  absl::StrAppendFormat(&svg,
                        "<text x=\"%.0f\" y=\"%.0f\">node index (time) &#8594;</text>\n"
                        "<text x=\"10\" y=\"%.0f\">offset</text>\n"
                        "<text x=\"10\" y=\"%.0f\">0</text>\n"
                        "<text x=\"10\" y=\"%.0f\">%s</text>\n</svg>\n",
                        left + width / 2 - 60, top + height + 30, top + height / 2, top + 10,
                        top + height, Bytes(plan.planned_bytes));
  return svg;
}

}  // namespace sr
}  // namespace static_runtime
