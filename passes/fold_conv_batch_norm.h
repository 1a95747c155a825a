// FoldConvBatchNormPastRankChecks: folds a batch norm into the convolution
// before it where torch.jit.freeze's folding (FoldFrozenConvBatchnorm) left
// it because the convolution's result has other uses: nn.BatchNorm2d's
// input check, `input.dim() != 4`, reads the result too (DenseNet's
// conv -> norm pairs). A convolution's result has the rank of its input
// (conv1d/2d/3d take a batched or an unbatched input and keep its rank), so
// such aten::dim uses read the convolution's input instead, and PyTorch's
// folding runs again. The convolution still runs first, so a bad input
// still fails there with ATen's error. Folding changes the result's
// rounding as freezing's own folding does (ops/conv/conv_error_bounds.h: the
// convolution's bound holds for the folded weights); it runs only with
// pre-packed weights (Options::prepack_weights).
#ifndef STATIC_RUNTIME_PASSES_FOLD_CONV_BATCH_NORM_H_
#define STATIC_RUNTIME_PASSES_FOLD_CONV_BATCH_NORM_H_

#include <memory>

#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

// Returns true if the graph changed.
bool FoldConvBatchNormPastRankChecks(const std::shared_ptr<torch::jit::Graph>& graph);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_FOLD_CONV_BATCH_NORM_H_
