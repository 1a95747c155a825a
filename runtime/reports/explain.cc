#include "runtime/reports/explain.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"

namespace static_runtime {
namespace reports {

std::string Explain(const StaticModule& module) {
  std::string text = absl::StrCat("prepared graph:\n", module.graph()->toString(), "\n");
  absl::StrAppendFormat(&text, "%-10s %-40s %s\n", "node", "kind", "kernel");
  for (const NodeDescription& node : module.DescribeNodes()) {
    absl::StrAppendFormat(&text, "%-10s %-40s %s\n", node.position,
                          node.node->kind().toQualString(), NodeKindName(node.kind));
    if (node.kind == NodeKind::kFallback) {
      absl::StrAppend(&text, "           why: ", node.fallback_reason, "\n");
    }
    if (!node.fused_ops.empty()) {
      absl::StrAppend(&text, "           fused: ", node.fused_ops, " (", node.fused_outputs_used,
                      " of ", node.node->outputs().size(), " values used after)\n");
    } else if (!node.not_fused_reason.empty()) {
      absl::StrAppend(&text, "           not fused: ", node.not_fused_reason, "\n");
    }
    if (node.caches.shape_plans > 0 || node.caches.prepared_weights > 0) {
      absl::StrAppendFormat(
          &text, "           caches: %d shape plans, %d prepared weights (%s)\n",
          node.caches.shape_plans, node.caches.prepared_weights,
          absl::StrFormat("%.2f MiB", node.caches.prepared_weight_bytes / (1024.0 * 1024.0)));
    }
  }
  const KernelCounts& counts = module.kernel_counts();
  absl::StrAppendFormat(&text,
                        "\n%d nodes: %d out variant, %d native, %d fallback; %d tensors planned "
                        "into the arena, %d outputs in the output buffer\n",
                        counts.total(), counts.out_variant, counts.native, counts.fallback,
                        module.planned_tensors(), module.output_buffer_tensors());
  absl::StrAppend(
      &text, FormatKernelCaches(module.KernelCaches(), module.options().shape_plans_per_kernel),
      "\n");
  return text;
}

std::string FormatKernelCaches(const KernelCacheStats& caches, size_t shape_plans_per_kernel) {
  return absl::StrFormat(
      "kernel caches: %d shape plans held (%d made, %d dropped; at most %d per kernel cache, "
      "option shape_plans_per_kernel), %d prepared weights in %.2f MiB",
      caches.shape_plans, caches.shape_plans_made, caches.shape_plans_evicted,
      shape_plans_per_kernel, caches.prepared_weights,
      caches.prepared_weight_bytes / (1024.0 * 1024.0));
}

std::string ToDot(const StaticModule& module) {
  std::string dot = "digraph prepared {\n  rankdir=TB;\n  node [shape=box, style=filled];\n";
  absl::flat_hash_map<const torch::jit::Value*, std::string> producer;
  for (const torch::jit::Value* input : module.graph()->inputs()) {
    const std::string id = absl::StrCat("input_", input->unique());
    producer[input] = id;
    absl::StrAppend(&dot, "  ", id, " [label=\"%", input->debugName(),
                    "\", shape=ellipse, fillcolor=white];\n");
  }
  for (const NodeDescription& node : module.DescribeNodes()) {
    const std::string id = absl::StrCat("node_", absl::StrReplaceAll(node.position, {{"/", "_"}}));
    const char* color = node.kind == NodeKind::kOutVariant ? "palegreen"
                        : node.kind == NodeKind::kNative   ? "lightyellow"
                        : node.kind == NodeKind::kFallback ? "lightsalmon"
                                                           : "lightblue";
    absl::StrAppend(&dot, "  ", id, " [label=\"", node.position, " ",
                    node.node->kind().toQualString(), "\\n", NodeKindName(node.kind),
                    "\", fillcolor=", color, "];\n");
    for (const torch::jit::Value* input : node.node->inputs()) {
      auto found = producer.find(input);
      if (found != producer.end()) absl::StrAppend(&dot, "  ", found->second, " -> ", id, ";\n");
    }
    for (const torch::jit::Value* output : node.node->outputs()) producer[output] = id;
  }
  absl::StrAppend(&dot, "}\n");
  return dot;
}

}  // namespace reports
}  // namespace static_runtime
