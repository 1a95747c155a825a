#include "runtime/plan.h"

#include <algorithm>
#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "errors/status_macros.h"
#include "ir/graph_util.h"
#include "ir/operators/operators.h"
#include "ops/core/fallback.h"
#include "ops/kernels.h"
#include "passes/fuse_pointwise.h"

namespace static_runtime {
namespace {

using torch::jit::Block;
using torch::jit::Node;
using torch::jit::Value;

template <typename Values, typename Slots>
void AddSlots(const ValueLayout& layout, const Values& values, Slots& slots) {
  for (const Value* value : values) slots.push_back(layout.SlotOf(value));
}

// What planning every node needs.
struct Planning {
  const ValueLayout& layout;
  bool allow_out_variants;
  const KernelFactory& fork_kernels;
  size_t shape_plans_per_kernel;
  size_t* next_number;  // the next node's NodeInfo::number
};

absl::StatusOr<BlockPlan> PlanBlock(const Block* block, const std::string& prefix,
                                    const Planning& planning);

// Plans `node` (its slots appended to `slots`, which the caller points the
// plan at once the block is complete).
absl::StatusOr<NodePlan> PlanNode(const Node* node, NodeInfo& info, std::vector<ValueIndex>& slots,
                                  const Planning& planning) {
  const ValueLayout& layout = planning.layout;
  NodePlan plan;
  info.node = node;
  plan.num_inputs = node->inputs().size();
  plan.num_outputs = node->outputs().size();
  AddSlots(layout, node->inputs(), slots);
  AddSlots(layout, node->outputs(), slots);
  if (node->kind() == c10::prim::If || node->kind() == c10::prim::Loop) {
    const bool is_if = node->kind() == c10::prim::If;
    info.kind = is_if ? NodeKind::kIf : NodeKind::kLoop;
    for (size_t i = 0; i < node->blocks().size(); ++i) {
      ASSIGN_OR_RETURN(
          BlockPlan block,
          PlanBlock(node->blocks()[i], absl::StrCat(info.position, "/", i, "/"), planning));
      plan.blocks.push_back(std::move(block));
    }
    if (!is_if) {
      const Block* body = node->blocks()[0];
      BlockPlan& body_plan = plan.blocks[0];
      for (const Value* output : body->outputs()) {
        const Node* definer = output->node();
        const bool defined_in_body = definer->owningBlock() == body &&
                                     definer != body->param_node() &&
                                     definer->kind() != c10::prim::Constant;
        const auto yields = std::count(body->outputs().begin(), body->outputs().end(), output);
        body_plan.recycle.push_back(defined_in_body && yields == 1);
      }
    }
    return plan;
  }
  if (node->kind() == ops::kFusedPointwise) {
    info.fused_ops = GroupOps(node);
    info.fused_outputs_used = node->i(ops::kUsedOutputs);
  }
  if (node->kind() == c10::prim::fork && planning.fork_kernels) {
    KernelOffer offer = planning.fork_kernels(node);
    if (!offer.declined()) {
      plan.kernel = std::move(offer).TakeKernel();
      return plan;
    }
  }
  auto caches = std::make_shared<KernelCacheAccount>(planning.shape_plans_per_kernel);
  std::optional<KernelRegistry::Selected> selected;
  {
    const KernelCacheScope scope(caches);
    selected = GlobalKernels().Find(node, planning.allow_out_variants);
  }
  if (selected) {
    info.caches = std::move(caches);
    plan.kernel = std::move(selected->kernel);
    info.kind = selected->kind;
    info.error_bound = std::move(selected->error_bound);
    return plan;
  }
  absl::StatusOr<Kernel> fallback = MakeFallbackKernel(node);
  if (!fallback.ok()) {
    return absl::Status(fallback.status().code(),
                        absl::StrCat("node ", info.position, " (", node->kind().toQualString(),
                                     ") at ", SourceOf(node), ": ", fallback.status().message()));
  }
  plan.kernel = *std::move(fallback);
  info.kind = NodeKind::kFallback;
  info.fallback_reason =
      node->maybeSchema() == nullptr
          ? "no operator schema matches this node; it runs on the JIT interpreter"
          : absl::StrCat("no registered kernel for ", c10::toString(node->schema()));
  return plan;
}

absl::StatusOr<BlockPlan> PlanBlock(const Block* block, const std::string& prefix,
                                    const Planning& planning) {
  BlockPlan plan;
  AddSlots(planning.layout, block->inputs(), plan.inputs);
  AddSlots(planning.layout, block->outputs(), plan.outputs);
  for (const Node* node : block->nodes()) {
    const size_t number = (*planning.next_number)++;
    if (node->kind() == c10::prim::Constant) continue;
    NodeInfo& info = plan.node_infos.emplace_back();
    info.number = number;
    info.position = absl::StrCat(prefix, plan.nodes.size());
    ASSIGN_OR_RETURN(NodePlan node_plan, PlanNode(node, info, plan.node_slots, planning));
    plan.nodes.push_back(std::move(node_plan));
  }
  // The arrays are complete: point every node at its part of them.
  const ValueIndex* slots = plan.node_slots.data();
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    NodePlan& node = plan.nodes[i];
    node.slots = slots;
    node.info = &plan.node_infos[i];
    node.kind = node.info->kind;
    slots += node.num_inputs + node.num_outputs;
  }
  return plan;
}

void Count(const BlockPlan& block, KernelCounts& counts) {
  for (const NodePlan& node : block.nodes) {
    switch (node.info->kind) {
      case NodeKind::kOutVariant:
        ++counts.out_variant;
        break;
      case NodeKind::kFallback:
        ++counts.fallback;
        break;
      case NodeKind::kNative:
      case NodeKind::kIf:
      case NodeKind::kLoop:
        ++counts.native;
        break;
    }
    for (const BlockPlan& sub_block : node.blocks) Count(sub_block, counts);
  }
}

}  // namespace

absl::StatusOr<BlockPlan> BuildPlan(const torch::jit::Graph& graph, const ValueLayout& layout,
                                    bool allow_out_variants, const KernelFactory& fork_kernels,
                                    size_t shape_plans_per_kernel) {
  size_t next_number = 0;
  return PlanBlock(
      graph.block(), "",
      Planning{layout, allow_out_variants, fork_kernels, shape_plans_per_kernel, &next_number});
}

KernelCounts CountKernels(const BlockPlan& plan) {
  KernelCounts counts;
  Count(plan, counts);
  return counts;
}

}  // namespace static_runtime
