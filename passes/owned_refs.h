// CreateOwnedRefs: a graph output that is a graph input or a constant gets an
// explicit `static_runtime::owned_ref(x)` node, so the runtime can hand every
// output to the caller by moving it out of a slot it owns, without special
// cases for values it must keep (constants) or does not own (inputs).
#ifndef STATIC_RUNTIME_PASSES_OWNED_REFS_H_
#define STATIC_RUNTIME_PASSES_OWNED_REFS_H_

#include <memory>

#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

// Returns true if the graph changed.
bool CreateOwnedRefs(const std::shared_ptr<torch::jit::Graph>& graph);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_OWNED_REFS_H_
