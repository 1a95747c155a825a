// The block runner: executes a planned block on a value table, node by node,
// with prim::If choosing a sub-block and prim::Loop iterating its body
// (trip count, condition, loop-carried values). A node that throws stops the
// run with an error naming the node (kind, position, source) and describing
// its inputs; the caller cleans the table up.
#ifndef STATIC_RUNTIME_RUNTIME_BLOCK_RUNNER_H_
#define STATIC_RUNTIME_RUNTIME_BLOCK_RUNNER_H_

#include "ATen/core/ivalue.h"
#include "absl/status/status.h"
#include "runtime/plan.h"

namespace static_runtime {

absl::Status RunBlock(const BlockPlan& block, c10::IValue* values);

// Called around every node that runs a kernel, with the value table (for
// profiling and tests). Not owned.
class NodeObserver {
 public:
  virtual ~NodeObserver() = default;
  virtual void Before(const NodePlan& node, const c10::IValue* values) = 0;
  virtual void After(const NodePlan& node, const c10::IValue* values) = 0;
  // StaticRuntime::RunObserved reports how long each phase of the run took:
  // "bind", "allocate" (memory planning), "nodes", "release".
  virtual void Phase(const char* name, double microseconds) {}
};

// RunBlock, reporting each kernel call to `observer`.
absl::Status RunBlockObserved(const BlockPlan& block, c10::IValue* values,
                              NodeObserver& observer);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_RUNTIME_BLOCK_RUNNER_H_
