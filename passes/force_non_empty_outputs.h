// ForceNonEmptyOutputs: every sub-block gets at least one output. A `prim::If`
// whose blocks return nothing gets a `None` output in each block (and a
// matching output on the node), so the runtime's block runner never has to
// special-case empty blocks.
#ifndef STATIC_RUNTIME_PASSES_FORCE_NON_EMPTY_OUTPUTS_H_
#define STATIC_RUNTIME_PASSES_FORCE_NON_EMPTY_OUTPUTS_H_

#include <memory>

#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

// Returns true if the graph changed.
bool ForceNonEmptyOutputs(const std::shared_ptr<torch::jit::Graph>& graph);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_FORCE_NON_EMPTY_OUTPUTS_H_
