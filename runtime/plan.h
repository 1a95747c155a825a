// The execution plan of a prepared graph: for every block, its parameter and
// result slots and its nodes in order; for every node, its input and output
// slots and either a kernel (out variant, native or fallback) or the control
// flow it stands for (prim::If, prim::Loop, whose sub-blocks are planned the
// same way). Built once per StaticModule, read-only afterwards.
#ifndef STATIC_RUNTIME_RUNTIME_PLAN_H_
#define STATIC_RUNTIME_RUNTIME_PLAN_H_

#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "ops/registry.h"
#include "runtime/value_layout.h"
#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

struct BlockPlan;

struct NodePlan {
  enum class Control { kKernel, kIf, kLoop };

  const torch::jit::Node* node = nullptr;
  // Position in the graph for messages: "4", or "4/1/0" for the first node of
  // the second block of node 4.
  std::string position;
  Control control = Control::kKernel;
  KernelKind kind = KernelKind::kNative;  // for kKernel
  Kernel kernel;                          // for kKernel
  ErrorBound error_bound;                 // empty: bit-exact (see ops/registry.h)
  // Why the node did not get a registered kernel (for fallbacks).
  std::string fallback_reason;
  absl::InlinedVector<ValueIndex, 4> inputs;
  absl::InlinedVector<ValueIndex, 2> outputs;
  std::vector<BlockPlan> blocks;
};

struct BlockPlan {
  absl::InlinedVector<ValueIndex, 2> inputs;
  std::vector<NodePlan> nodes;
  absl::InlinedVector<ValueIndex, 2> outputs;
};

struct KernelCounts {
  size_t out_variant = 0;
  size_t native = 0;  // control flow (If, Loop) included
  size_t fallback = 0;
  size_t total() const { return out_variant + native + fallback; }
};

// Binds every node of `graph` to a kernel from the global registry (out
// variants only if `allow_out_variants`), falling back to the JIT. An error
// names a node no kernel and no fallback can run.
absl::StatusOr<BlockPlan> BuildPlan(const torch::jit::Graph& graph,
                                    const ValueLayout& layout,
                                    bool allow_out_variants);

KernelCounts CountKernels(const BlockPlan& plan);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_RUNTIME_PLAN_H_
