// FusePointwise: connected groups of float elementwise nodes become one
// `static_runtime::fused_pointwise` node whose Subgraph attribute holds the
// group. Its inputs are the values the group uses (constants too); its
// outputs are the group's values used after it (or returned), then its
// other values, so that the kernel can also run the nodes one by one on the
// runtime's slots (planned like any other intermediate).
//
// What fuses (ir/operators/pointwise_match.h says which node is which op): aten::add/sub (Tensor
// and Scalar overloads, alpha a constant 1), mul, div (without rounding mode), comparisons (gt, lt,
// ge, le, eq, ne with a tensor or a number), where (not of two numbers), masked_fill with a number,
// `to` float32, bool, int32 or int64 (no memory format) of a comparison's or another conversion's
// result of another dtype in the same window (so that it surely converts; see also the alias rule),
// neg, abs, relu, sigmoid, tanh, exp, log, log1p, sqrt, rsqrt, silu, gelu (a constant
// approximate), hardswish, hardsigmoid, leaky_relu with a constant slope, clamp and hardtanh with
// two constant bounds, clamp with one (the other None), clamp_min and clamp_max with a constant
// bound. A window is a sequence
// of such nodes with only constants between them; its groups are its
// connected parts (chains and trees: a node joins the part of each window
// value it uses), each cut in order into pieces of at most 32 nodes; a
// group has at least two nodes. The fused node sits where the group's last
// node was.
//
// Aliasing. Every op fused but `to` is functional (it writes nothing and
// returns a fresh tensor), and everything in a window is such an op or a
// constant. A group's values are used outside the window only after it, and
// the window's other nodes, which the group may move past, neither use its
// values nor produce values it uses: whatever reads or writes the group's
// inputs or outputs before or after the window sees them exactly as before,
// and an in-place op ends a window (it is not fusible). `to` of a tensor
// of its dtype returns its input itself; a fused one converts a value of
// another dtype, so it returns a fresh tensor too. The alias rule, a check
// of that with alias analysis: a `to` is fused only if alias analysis
// (torch::jit::AliasDb, on the graph before fusion) finds no writer of its
// input's or its result's memory anywhere in the graph.
//
// Shapes, dtypes and layouts are not known here; the kernel checks them on
// each run and, when they do not fit its fused form, runs the nodes one by
// one.
#ifndef STATIC_RUNTIME_PASSES_FUSE_POINTWISE_H_
#define STATIC_RUNTIME_PASSES_FUSE_POINTWISE_H_

#include <functional>
#include <memory>
#include <string>

#include "c10/util/Optional.h"
#include "ir/operators/pointwise_match.h"
#include "torch/csrc/jit/ir/alias_analysis.h"
#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

// Why FusePointwise never fuses `node` ("" when it may: then only the run
// around it decides); `alias_db` is of the node's graph.
std::string WhyNotFusible(const torch::jit::Node* node, const torch::jit::AliasDb& alias_db);

// The ops of a fused node's group, in order: "silu, mul, hardswish".
std::string GroupOps(const torch::jit::Node* fused);

// Returns true if the graph changed.
bool FusePointwise(const std::shared_ptr<torch::jit::Graph>& graph);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_FUSE_POINTWISE_H_
