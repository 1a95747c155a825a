// FusePointwise: runs of consecutive float elementwise nodes become one
// `static_runtime::fused_pointwise` node whose Subgraph attribute holds the
// run. Its inputs are the values the run uses (constants too); its outputs
// are the run's values used after it (or returned), then the run's other
// values, so that the kernel can also run the nodes one by one on the
// runtime's slots (planned like any other intermediate).
//
// What fuses: aten::add/sub (Tensor and Scalar overloads, alpha a constant 1),
// mul, div (without rounding mode), neg, abs, relu, sigmoid, tanh, exp, log,
// sqrt, rsqrt and clamp with two constant bounds. A run is a sequence of such
// nodes, each after the first using a value of the run, of at least two
// nodes and at most 32.
//
// Why this is safe without alias analysis: every op fused is functional (it
// writes nothing and returns a fresh tensor), and the group takes the place
// of the run it replaces (only constants sit between a run's nodes), so no
// node moves past any other: whatever reads or writes the run's inputs or
// outputs before or after sees them exactly as before. Shapes and dtypes are not known here; the
// kernel checks them on each run and, when they do not fit its fused form (float32, one shape,
// contiguous), runs the nodes one by one.
#ifndef STATIC_RUNTIME_PASSES_FUSE_POINTWISE_H_
#define STATIC_RUNTIME_PASSES_FUSE_POINTWISE_H_

#include <memory>
#include <string>

#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

// Why FusePointwise never fuses `node` ("" when it may: then only the run
// around it decides).
std::string WhyNotFusible(const torch::jit::Node* node);

// Returns true if the graph changed.
bool FusePointwise(const std::shared_ptr<torch::jit::Graph>& graph);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_FUSE_POINTWISE_H_
