// DropEvalDropout: dropout(x, p, train) (and feature_dropout, alpha_dropout,
// feature_alpha_dropout) with a constant p in [0, 1] and either a constant
// false `train` or p = 0 becomes x itself, as ATen returns it then: the
// tensor, not a copy. Functional dropout survives freezing as such a node
// (torchvision's Swin calls `F.dropout(attn, p=0.0)` with training left
// true), which would run as a fallback and hide from the memory planner that
// its result is its input.
#ifndef STATIC_RUNTIME_PASSES_DROP_EVAL_DROPOUT_H_
#define STATIC_RUNTIME_PASSES_DROP_EVAL_DROPOUT_H_

#include <memory>

#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

// Returns true if the graph changed.
bool DropEvalDropout(const std::shared_ptr<torch::jit::Graph>& graph);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_DROP_EVAL_DROPOUT_H_
