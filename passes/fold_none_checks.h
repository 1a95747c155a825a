// FoldNoneChecks: `x is None` / `x is not None` (aten::__is__ /
// aten::__isnot__) where one operand must be None and the other can never
// be (its static type is neither None, Optional nor a Union holding None),
// and `x is x` / `x is not x` of one value (`self.self_attn(x, x, x)`
// inlined asks `query is key`), become the constant answer, and the branches they decide fold
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

// First an If's results that are one value in every branch are merged, and
// an optional result that no branch yields None for takes the type they
// yield: after inlining, `nn.MultiheadAttention`'s `query`, `key` and `value`
// and its padding mask pass through such Ifs.
//
// Returns true if the graph changed.
bool FoldNoneChecks(const std::shared_ptr<torch::jit::Graph>& graph);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_FOLD_NONE_CHECKS_H_
