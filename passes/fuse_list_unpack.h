// FuseListUnpack: an op returning a list of tensors whose only use is a
// `prim::ListUnpack` in the same block becomes one multi-output node, e.g.
// `a, b = x.split(2)` -> `a, b = static_runtime::split_unpacked(x, 2, 0)`.
// Covers aten::split.Tensor, split_with_sizes, chunk and unbind.int. The fused
// node returns copies rather than views, so it is only used when alias
// analysis shows that nothing writes to the input or to any part, and in a
// graph that reads no strides (aten::stride, aten::is_contiguous).
#ifndef STATIC_RUNTIME_PASSES_FUSE_LIST_UNPACK_H_
#define STATIC_RUNTIME_PASSES_FUSE_LIST_UNPACK_H_

#include <memory>

#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

// Returns true if the graph changed.
bool FuseListUnpack(const std::shared_ptr<torch::jit::Graph>& graph);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_FUSE_LIST_UNPACK_H_
