// FuseBatchNormRelu: aten::batch_norm in inference (a constant false
// `training`) whose result is read only by one aten::relu in the same block
// becomes one static_runtime::batch_norm_relu node with the batch norm's
// arguments, at the batch norm's place, and the relu's uses read its result:
// its kernel applies the relu as it writes each value, one pass over the
// tensor instead of two. These are the batch norms freezing cannot fold into
// a convolution, followed by their activation: DenseNet's after each
// concatenation, pre-activation ResNets', BatchNorm1d + ReLU in MLPs. The
// batch norm's result has no other reader, so nobody can observe that it is
// never materialized; the relu reads nothing else, so computing it earlier,
// where the batch norm was, gives the same values. The fused node computes
// exactly relu(batch_norm(...)) (ops::BatchNormReluReference).
#ifndef STATIC_RUNTIME_PASSES_FUSE_BATCH_NORM_RELU_H_
#define STATIC_RUNTIME_PASSES_FUSE_BATCH_NORM_RELU_H_

#include <memory>

#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

// Returns true if the graph changed.
bool FuseBatchNormRelu(const std::shared_ptr<torch::jit::Graph>& graph);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_FUSE_BATCH_NORM_RELU_H_
