// HoistDictLookups: the constant-key lookups `d["key"]` on a graph input dict
// `d` in the graph's top-level block become one node
// `static_runtime::unpack_dict(d, "k1", "k2", ...) -> (v1, v2, ...)` placed
// where the first of them was, so the dict is searched once per run in one
// place. Only done when nothing ever writes to the dict. Lookups inside
// If/Loop blocks are left alone (hoisting them could raise a KeyError that
// the original program would have skipped).
#ifndef STATIC_RUNTIME_PASSES_HOIST_DICT_LOOKUPS_H_
#define STATIC_RUNTIME_PASSES_HOIST_DICT_LOOKUPS_H_

#include <memory>

#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

// Returns true if the graph changed.
bool HoistDictLookups(const std::shared_ptr<torch::jit::Graph>& graph);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_HOIST_DICT_LOOKUPS_H_
