// UseCopyVariants: a view op (reshape, flatten, permute, reshape_as and
// contiguous in the contiguous format; see ops::CopyVariants()) becomes its
// copying twin `static_runtime::copy_<op>` when alias analysis proves nobody
// can observe the aliasing: neither the input nor the view is ever written,
// and the view does not escape through the graph's outputs, and, for
// reshape, flatten, reshape_as and contiguous, when its input is not as a
// rule contiguous (a graph argument, a stack's or a matrix product's result:
// of those the view is free), and when no reduction that adds in memory order
// (sum, mean, norm, ...) reads the view or what strided ops computed from it
// (the copy's other memory order would change its rounding). Nothing is
// rewritten in a graph that writes to the input or result of reshape,
// flatten, reshape_as or contiguous: whether those return a view or a copy
// depends on strides, which copies would change.
#ifndef STATIC_RUNTIME_PASSES_COPY_VARIANTS_H_
#define STATIC_RUNTIME_PASSES_COPY_VARIANTS_H_

#include <memory>

#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

// Returns true if the graph changed.
bool UseCopyVariants(const std::shared_ptr<torch::jit::Graph>& graph);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_COPY_VARIANTS_H_
