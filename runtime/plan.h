// The execution plan of a prepared graph: for every block, its parameter and
// result slots and its nodes in order; for every node, its input and output
// slots and either a kernel (out variant, native or fallback) or the control
// flow it stands for (prim::If, prim::Loop, whose sub-blocks are planned the
// same way). Built once per StaticModule, read-only afterwards.
//
// A node's plan is split in two. The hot record (NodePlan) holds only what a
// run reads: the node kind, the kernel, a pointer to its slots in its
// block's one flat index array (inputs, then outputs) and its sub-blocks.
// The cold record (NodeInfo: the JIT node, its position, kernel kind, error
// bound, why it fell back) lives in a separate array of the block and is
// read by errors, tools and checks only. Both arrays belong to the BlockPlan
// and keep their addresses when it moves; a BlockPlan is not copyable.
#ifndef STATIC_RUNTIME_RUNTIME_PLAN_H_
#define STATIC_RUNTIME_RUNTIME_PLAN_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "execution/kernel_caches.h"
#include "ops/core/registry.h"
#include "runtime/types.h"
#include "runtime/value_layout.h"
#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

struct BlockPlan;

// What errors, tools and checks read about a node: its public description
// (the JIT node, its position, what it runs as, why it fell back), and the
// kernel's error bound.
struct NodeInfo : NodeDescription {
  ErrorBound error_bound;  // empty: bit-exact (see ops/core/registry.h)
  // The node's number in the graph's execution order through all blocks,
  // constants included: the numbers of memory/lifetimes.h.
  size_t number = 0;
  // What the caches of its kernel report to (null for nodes without one of
  // ours: control flow, fallbacks, forks).
  std::shared_ptr<KernelCacheAccount> caches;
};

// What a run reads about a node.
struct NodePlan {
  NodeKind kind = NodeKind::kNative;  // a copy of info->kind, read by the run loop
  uint32_t num_inputs = 0;
  uint32_t num_outputs = 0;
  const ValueIndex* slots = nullptr;  // inputs, then outputs
  Kernel kernel;                      // for the kernel kinds
  std::vector<BlockPlan> blocks;      // for kIf (then, else) and kLoop (body)
  const NodeInfo* info = nullptr;

  absl::Span<const ValueIndex> inputs() const { return {slots, num_inputs}; }
  absl::Span<const ValueIndex> outputs() const { return {slots + num_inputs, num_outputs}; }
};

struct BlockPlan {
  BlockPlan() = default;
  BlockPlan(BlockPlan&&) = default;
  BlockPlan& operator=(BlockPlan&&) = default;
  BlockPlan(const BlockPlan&) = delete;
  BlockPlan& operator=(const BlockPlan&) = delete;

  absl::InlinedVector<ValueIndex, 2> inputs;
  std::vector<NodePlan> nodes;
  absl::InlinedVector<ValueIndex, 2> outputs;
  // For a loop body, by output: a value a node of the body defines and the
  // body yields once, whose slot may take the previous iteration's value of
  // that carried slot, for the defining kernel to reuse its memory (two
  // buffers take turns) when nothing else holds it.
  absl::InlinedVector<bool, 2> recycle;
  // The storage behind the nodes' `slots` and `info`.
  std::vector<ValueIndex> node_slots;
  std::vector<NodeInfo> node_infos;
};

// Binds every node of `graph` to a kernel from the global registry (out
// variants only if `allow_out_variants`), falling back to the JIT. A
// prim::fork gets the kernel `fork_kernels` makes for it, if it makes one
// (a native kernel). An error names a node no kernel and no fallback can
// run. Each kernel's caches keep the plans of at most
// `shape_plans_per_kernel` input shapes (execution/kernel_caches.h).
absl::StatusOr<BlockPlan> BuildPlan(const torch::jit::Graph& graph, const ValueLayout& layout,
                                    bool allow_out_variants,
                                    const KernelFactory& fork_kernels = nullptr,
                                    size_t shape_plans_per_kernel = kDefaultShapePlansPerCache);

KernelCounts CountKernels(const BlockPlan& plan);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_RUNTIME_PLAN_H_
