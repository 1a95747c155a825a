// Which fusible elementwise op (ir/operators/pointwise_op.h) a JIT node is:
// the schemas FusePointwise (passes/fuse_pointwise.h) fuses, and the
// constant arguments each needs. Shared by the fusion pass, which decides
// what joins a group, and by the fused kernel (ops/elementwise/pointwise_fused.cc),
// which reads a fused node's subgraph back into a program.
#ifndef STATIC_RUNTIME_IR_OPERATORS_POINTWISE_MATCH_H_
#define STATIC_RUNTIME_IR_OPERATORS_POINTWISE_MATCH_H_

#include <functional>
#include <string>

#include "c10/util/Optional.h"
#include "ir/operators/pointwise_op.h"
#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

// The constant a value stands for, if any.
using ConstantOf = std::function<c10::optional<c10::IValue>(const torch::jit::Value*)>;

// The op `node` is, if FusePointwise may fuse it: it matches one of the
// fusible schemas and its constant arguments (as `constant_of` tells them;
// inside a fused node's subgraph, the fused node's inputs) suit it.
c10::optional<PointwiseOp> PointwiseOpOf(const torch::jit::Node* node,
                                         const ConstantOf& constant_of);

// PointwiseOpOf, and when `node` is no such op, why not (in *why).
c10::optional<PointwiseOp> MatchPointwiseOp(const torch::jit::Node* node,
                                            const ConstantOf& constant_of, std::string* why);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_IR_OPERATORS_POINTWISE_MATCH_H_
