// The block runner: executes a planned block on a value table, node by node,
// with prim::If choosing a sub-block and prim::Loop iterating its body
// (trip count, condition, loop-carried values). A node that throws stops the
// run with an error naming the node (kind, position, source) and describing
// its inputs; the caller cleans the table up.
#ifndef STATIC_RUNTIME_RUNTIME_BLOCK_RUNNER_H_
#define STATIC_RUNTIME_RUNTIME_BLOCK_RUNNER_H_

#include <exception>

#include "ATen/core/ivalue.h"
#include "absl/status/status.h"
#include "memory/planner.h"
#include "runtime/plan.h"
#include "runtime/types.h"

namespace static_runtime {

absl::Status RunBlock(const BlockPlan& block, c10::IValue* values);

// The exception the node whose error a RunBlock on this thread last returned
// threw, as it was thrown (its type and what()); null if there was none
// since the last call. Clears it.
std::exception_ptr TakeNodeException();

// RunBlock, reporting each kernel call to `observer`.
absl::Status RunBlockObserved(const BlockPlan& block, c10::IValue* values, NodeObserver& observer);

// RunBlock (or RunBlockObserved, with an `observer`) telling `planner`
// about each kernel node before it runs: for its poisoning mode.
absl::Status RunBlockPoisoning(const BlockPlan& block, c10::IValue* values,
                               memory::MemoryPlanner& planner, NodeObserver* observer);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_RUNTIME_BLOCK_RUNNER_H_
