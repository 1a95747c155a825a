// ConstantTripCount: how many times a `prim::Loop` runs, when that is known
// when the model is prepared: the loop's maximum trip count is a constant and
// its conditions either are constant or follow from constants alone. The
// latter covers a `for` loop with `continue` and a counted `while`, which
// TorchScript compiles as a loop of unbounded trips carrying a counter, with
// a condition such as `i + 1 < 4`: the nodes of the body that the condition
// depends on (through the carried values they update) are evaluated with the
// JIT's own operators, trip by trip, when they are pure scalar operations
// (no tensors, no side effects, no nested blocks) reading only constants, the
// iteration number and carried values that start as constants.
#ifndef STATIC_RUNTIME_PASSES_LOOP_TRIP_COUNT_H_
#define STATIC_RUNTIME_PASSES_LOOP_TRIP_COUNT_H_

#include <cstdint>

#include "c10/util/Optional.h"
#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

// The number of times `loop`'s body runs, if known and at most `limit`;
// nullopt otherwise (unknown, or more than `limit`).
c10::optional<int64_t> ConstantTripCount(const torch::jit::Node* loop, int64_t limit);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_LOOP_TRIP_COUNT_H_
