// FoldBuiltLists: folds `len(l)` and `l[i]` (a constant i) of a list whose
// contents are known where they are read: built by `prim::ListConstruct`
// and then only appended to (`aten::append`, its result unused) in the same
// block, as a list comprehension over a module's heads is compiled. Reading
// stops being folded at the list's first other use (a write, a use inside a
// nested block, anything that may keep an alias of it), so only reads that
// come before anything could change the list are folded. `l[i]` becomes the
// very value appended (the JIT's list returns the same object); an index out
// of range is left to fail at run time. The appends stay: the list is still
// built for whoever else reads it.
//
// LibTorch's PeepholeOptimizeListIdioms folds the same reads of lists that are
// never mutated; this covers lists built by appends. Constant trip counts of
// loops over such lists come from here (passes/unroll_constant_loops).
#ifndef STATIC_RUNTIME_PASSES_FOLD_BUILT_LISTS_H_
#define STATIC_RUNTIME_PASSES_FOLD_BUILT_LISTS_H_

#include <memory>

#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

// Returns true if the graph changed.
bool FoldBuiltLists(const std::shared_ptr<torch::jit::Graph>& graph);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_FOLD_BUILT_LISTS_H_
