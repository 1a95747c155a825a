#include "tools/sr/explain.h"

#include <functional>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "passes/fuse_pointwise.h"
#include "ir/operators/operators.h"

namespace static_runtime {
namespace sr {
namespace {

const char* KindOf(const NodePlan& node) {
  if (node.control == NodePlan::Control::kIf) return "control (If)";
  if (node.control == NodePlan::Control::kLoop) return "control (Loop)";
  return KernelKindName(node.info->kind);
}

void ForEachNode(const BlockPlan& block, const std::function<void(const NodePlan&)>& visit) {
  for (const NodePlan& node : block.nodes) {
    visit(node);
    for (const BlockPlan& sub_block : node.blocks) ForEachNode(sub_block, visit);
  }
}

// Whether the node before or after `node` (constants aside) is a fused group.
bool NextToFusedGroup(const torch::jit::Node* node) {
  const torch::jit::Node* previous = node->prev();
  while (previous->kind() == c10::prim::Constant) previous = previous->prev();
  const torch::jit::Node* next = node->next();
  while (next->kind() == c10::prim::Constant) next = next->next();
  return previous->kind() == ops::kFusedPointwise || next->kind() == ops::kFusedPointwise;
}

}  // namespace

std::string Explain(const StaticModule& module) {
  std::string text = absl::StrCat("prepared graph:\n", module.graph()->toString(), "\n");
  absl::StrAppendFormat(&text, "%-10s %-40s %s\n", "node", "kind", "kernel");
  const torch::jit::AliasDb alias_db(module.graph());
  ForEachNode(module.plan(), [&](const NodePlan& node) {
    absl::StrAppendFormat(&text, "%-10s %-40s %s\n", node.info->position,
                          node.info->node->kind().toQualString(), KindOf(node));
    if (node.control == NodePlan::Control::kKernel && node.info->kind == KernelKind::kFallback) {
      absl::StrAppend(&text, "           why: ", node.info->fallback_reason, "\n");
    }
    const torch::jit::Node* jit_node = node.info->node;
    if (jit_node->kind() == ops::kFusedPointwise) {
      absl::StrAppend(&text, "           fused: ", GroupOps(jit_node), " (",
                      jit_node->i(ops::kUsedOutputs), " of ", jit_node->outputs().size(),
                      " values used after)\n");
    } else if (NextToFusedGroup(jit_node)) {
      const std::string why = WhyNotFusible(jit_node, alias_db);
      absl::StrAppend(&text, "           not fused: ",
                      why.empty() ? "it shares no value with the group next to it" : why, "\n");
    }
  });
  const KernelCounts& counts = module.kernel_counts();
  absl::StrAppendFormat(&text,
                        "\n%d nodes: %d out variant, %d native, %d fallback; %d tensors planned "
                        "into the arena, %d outputs in the output buffer\n",
                        counts.total(), counts.out_variant, counts.native, counts.fallback,
                        module.managed_slots().size(), module.output_slots().size());
  return text;
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
  ForEachNode(module.plan(), [&](const NodePlan& node) {
    const std::string id =
        absl::StrCat("node_", absl::StrReplaceAll(node.info->position, {{"/", "_"}}));
    const char* color = node.control != NodePlan::Control::kKernel   ? "lightblue"
                        : node.info->kind == KernelKind::kOutVariant ? "palegreen"
                        : node.info->kind == KernelKind::kNative     ? "lightyellow"
                                                                     : "lightsalmon";
    absl::StrAppend(&dot, "  ", id, " [label=\"", node.info->position, " ",
                    node.info->node->kind().toQualString(), "\\n", KindOf(node),
                    "\", fillcolor=", color, "];\n");
    for (const torch::jit::Value* input : node.info->node->inputs()) {
      auto found = producer.find(input);
      if (found != producer.end()) absl::StrAppend(&dot, "  ", found->second, " -> ", id, ";\n");
    }
    for (const torch::jit::Value* output : node.info->node->outputs()) producer[output] = id;
  });
  absl::StrAppend(&dot, "}\n");
  return dot;
}

}  // namespace sr
}  // namespace static_runtime
