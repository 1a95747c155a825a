// FoldConstantSplits: a split of a constant tensor into sizes computed at run
// time from one unknown integer (`w.split([E, E * 2])`, as
// `nn.MultiheadAttention` splits its packed in-projection when the key is the
// value but not the query: a decoder's cross-attention) becomes the constant
// pieces, guarded. The sizes must sum to the tensor's size along the split
// dimension, so at most one E lets the split succeed: the pass solves for it
// from the sizes (each a constant, E, or E times a constant) and replaces the
// split's results by the pieces for that E, which later passes see as
// constant weights (prepacked linears). A check before them keeps every
// other E an error, ATen's own: `if E != E0: w.split([E, E * 2])` (it
// raises; one check serves every split of E in a block).
//
// Safe because the split is a view of immutable constant memory: for E0 the
// pieces are exactly the views ATen would return, and for any other E the
// split raises where it stood.
#ifndef STATIC_RUNTIME_PASSES_FOLD_CONSTANT_SPLITS_H_
#define STATIC_RUNTIME_PASSES_FOLD_CONSTANT_SPLITS_H_

#include <memory>

#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

// Returns true if the graph changed.
bool FoldConstantSplits(const std::shared_ptr<torch::jit::Graph>& graph);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_FOLD_CONSTANT_SPLITS_H_
