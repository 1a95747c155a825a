// EliminateNoOpSlice: removes slices that select everything. A tensor
// `aten::slice(x, dim, None|0, None|INT64_MAX, 1)` becomes `x` (a full view
// aliases `x` anyway); a list `aten::slice.t(l, None|0, None|INT64_MAX, 1)`
// becomes `l` when neither list is ever mutated (a list slice is a new list).
#ifndef STATIC_RUNTIME_PASSES_ELIMINATE_NOOP_SLICE_H_
#define STATIC_RUNTIME_PASSES_ELIMINATE_NOOP_SLICE_H_

#include <memory>

#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

// Returns true if the graph changed.
bool EliminateNoOpSlice(const std::shared_ptr<torch::jit::Graph>& graph);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_ELIMINATE_NOOP_SLICE_H_
