// FoldNoneChecks: `x is None` / `x is not None` (aten::__is__ /
// aten::__isnot__) where one operand must be None and the other can never
// be (its static type is neither None, Optional nor a Union holding None)
// become the constant answer, and the branches they decide fold
// (ConstantPropagation). After freezing, an optional submodule's result is
// often a plain Tensor (torchaudio's ConvTasNet: `if residual is not None:
// feats = feats + residual`), and the branch then costs its result's
// allocation on every run: a value an If yields is not planned. Also drops
// a prim::unchecked_cast whose operand already has the type it casts to.
#ifndef STATIC_RUNTIME_PASSES_FOLD_NONE_CHECKS_H_
#define STATIC_RUNTIME_PASSES_FOLD_NONE_CHECKS_H_

#include <memory>

#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

// Returns true if the graph changed.
bool FoldNoneChecks(const std::shared_ptr<torch::jit::Graph>& graph);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_FOLD_NONE_CHECKS_H_
