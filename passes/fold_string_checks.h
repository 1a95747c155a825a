// FoldStringChecks: decides at preparation the string tests PyTorch's modules
// make on every call. `nn.MultiheadAttention` and `nn.TransformerEncoder(Layer)`
// build a `why_not_fast_path` message (`f"{name}.self_attn.batch_first was
// not True"`) and take their fast path only when it is empty; the JIT folds
// neither the formatting nor the test, so a frozen model built with
// `batch_first=False` (PyTorch's default) runs dozens of branches and formats
// a string per call, and the attention it computes sits inside an If, whose
// yielded values are not planned.
//
// Two rewrites, then ConstantPropagation decides the branches:
//  - `aten::format` whose arguments are all constant strings, numbers,
//    booleans or None becomes its constant result (the operator's own);
//  - a comparison of `aten::len(s)` with a constant integer becomes the
//    constant answer when a lower bound of `s`'s length settles it. The bound:
//    a constant's length; for `aten::format`, its constant format string's
//    characters other than braces (each kept verbatim); for `aten::add` of
//    two strings, the sum; for an If's result, the least over its branches.
#ifndef STATIC_RUNTIME_PASSES_FOLD_STRING_CHECKS_H_
#define STATIC_RUNTIME_PASSES_FOLD_STRING_CHECKS_H_

#include <memory>

#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

// Returns true if the graph changed.
bool FoldStringChecks(const std::shared_ptr<torch::jit::Graph>& graph);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_FOLD_STRING_CHECKS_H_
