// UnrollConstantLoops: replaces a `prim::Loop` that runs a number of times
// known when the model is prepared by that many copies of its body, in order.
// A loop qualifies when that number is known (passes/loop_trip_count.h: a
// constant trip count, after folding `len` of lists whose contents are known
// as `for x in [a, b, c]` or `enumerate` over a list comprehension on a
// module's heads, with constant-true conditions; or conditions that follow
// from constants and counters, as a `for` with `continue` or a counted
// `while`; never a `break` on data), it forks nothing, and the copies stay
// small: at most kMaxUnrolledTrips trips and kMaxUnrolledNodes nodes in all.
// Each copy reads the iteration number as a constant, so constant
// propagation and the list peepholes then fold what it fed (`l[i]`,
// `str(i)`, `float(i)`).
//
// Why: a flat graph runs without the loop's per-iteration bookkeeping, and its
// values are planned like any other (the memory planner leaves loop bodies
// unplanned: one iteration's values would be overwritten by the next while
// still held).
#ifndef STATIC_RUNTIME_PASSES_UNROLL_CONSTANT_LOOPS_H_
#define STATIC_RUNTIME_PASSES_UNROLL_CONSTANT_LOOPS_H_

#include <cstdint>
#include <memory>

#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

inline constexpr int64_t kMaxUnrolledTrips = 32;
// Trip count times the nodes of the body (nested blocks included).
inline constexpr int64_t kMaxUnrolledNodes = 512;

// Returns true if the graph changed.
bool UnrollConstantLoops(const std::shared_ptr<torch::jit::Graph>& graph);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_UNROLL_CONSTANT_LOOPS_H_
