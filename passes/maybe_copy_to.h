// UseMaybeCopyTo: `aten::to` (overloads dtype, other, prim_dtype) becomes
// `static_runtime::maybe_copy_to` with the same arguments and semantics: it
// returns its input when no conversion is needed, and otherwise a converted
// tensor that the runtime may place in memory it owns.
#ifndef STATIC_RUNTIME_PASSES_MAYBE_COPY_TO_H_
#define STATIC_RUNTIME_PASSES_MAYBE_COPY_TO_H_

#include <memory>

#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

// Returns true if the graph changed.
bool UseMaybeCopyTo(const std::shared_ptr<torch::jit::Graph>& graph);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_MAYBE_COPY_TO_H_
