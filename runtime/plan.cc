#include "runtime/plan.h"

#include "absl/strings/str_cat.h"
#include "ops/fallback.h"

namespace static_runtime {
namespace {

using torch::jit::Block;
using torch::jit::Node;
using torch::jit::Value;

template <typename Values, typename Slots>
void AddSlots(const ValueLayout& layout, const Values& values, Slots& slots) {
  for (const Value* value : values) slots.push_back(layout.SlotOf(value));
}

absl::StatusOr<BlockPlan> PlanBlock(const Block* block, const std::string& prefix,
                                    const ValueLayout& layout, bool allow_out_variants);

absl::StatusOr<NodePlan> PlanNode(const Node* node, std::string position,
                                  const ValueLayout& layout, bool allow_out_variants) {
  NodePlan plan;
  plan.node = node;
  plan.position = std::move(position);
  AddSlots(layout, node->inputs(), plan.inputs);
  AddSlots(layout, node->outputs(), plan.outputs);
  if (node->kind() == c10::prim::If || node->kind() == c10::prim::Loop) {
    plan.control = node->kind() == c10::prim::If ? NodePlan::Control::kIf
                                                 : NodePlan::Control::kLoop;
    for (size_t i = 0; i < node->blocks().size(); ++i) {
      absl::StatusOr<BlockPlan> block =
          PlanBlock(node->blocks()[i], absl::StrCat(plan.position, "/", i, "/"), layout,
                    allow_out_variants);
      if (!block.ok()) return block.status();
      plan.blocks.push_back(*std::move(block));
    }
    return plan;
  }
  if (auto selected = KernelRegistry::Global().Find(node, allow_out_variants)) {
    plan.kernel = std::move(selected->kernel);
    plan.kind = selected->kind;
    plan.error_bound = std::move(selected->error_bound);
    return plan;
  }
  absl::StatusOr<Kernel> fallback = MakeFallbackKernel(node);
  if (!fallback.ok()) {
    return absl::Status(fallback.status().code(),
                        absl::StrCat("node ", plan.position, " (", node->kind().toQualString(),
                                     "): ", fallback.status().message()));
  }
  plan.kernel = *std::move(fallback);
  plan.kind = KernelKind::kFallback;
  plan.fallback_reason =
      node->maybeSchema() == nullptr
          ? "no operator schema matches this node; it runs on the JIT interpreter"
          : absl::StrCat("no registered kernel for ", c10::toString(node->schema()));
  return plan;
}

absl::StatusOr<BlockPlan> PlanBlock(const Block* block, const std::string& prefix,
                                    const ValueLayout& layout, bool allow_out_variants) {
  BlockPlan plan;
  AddSlots(layout, block->inputs(), plan.inputs);
  AddSlots(layout, block->outputs(), plan.outputs);
  size_t index = 0;
  for (const Node* node : block->nodes()) {
    if (node->kind() == c10::prim::Constant) continue;
    absl::StatusOr<NodePlan> node_plan =
        PlanNode(node, absl::StrCat(prefix, index++), layout, allow_out_variants);
    if (!node_plan.ok()) return node_plan.status();
    plan.nodes.push_back(*std::move(node_plan));
  }
  return plan;
}

void Count(const BlockPlan& block, KernelCounts& counts) {
  for (const NodePlan& node : block.nodes) {
    if (node.control != NodePlan::Control::kKernel) {
      ++counts.native;
      for (const BlockPlan& sub_block : node.blocks) Count(sub_block, counts);
      continue;
    }
    switch (node.kind) {
      case KernelKind::kOutVariant:
        ++counts.out_variant;
        break;
      case KernelKind::kNative:
        ++counts.native;
        break;
      case KernelKind::kFallback:
        ++counts.fallback;
        break;
    }
  }
}

}  // namespace

absl::StatusOr<BlockPlan> BuildPlan(const torch::jit::Graph& graph,
                                    const ValueLayout& layout, bool allow_out_variants) {
  return PlanBlock(graph.block(), "", layout, allow_out_variants);
}

KernelCounts CountKernels(const BlockPlan& plan) {
  KernelCounts counts;
  Count(plan, counts);
  return counts;
}

}  // namespace static_runtime
