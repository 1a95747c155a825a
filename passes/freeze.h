// FreezeForInference: torch.jit.freeze in C++, the one freezing path of the
// project (preparation, and the JIT baseline `sr bench` compares with). A
// frozen copy of `module` in eval mode: its parameters and attributes folded
// into `method_name`'s graph as constants, then what torch.jit.freeze does
// after freezing (OptimizeFrozen below). `module` is not changed.
// InvalidArgument naming what LibTorch could not freeze.
#ifndef STATIC_RUNTIME_PASSES_FREEZE_H_
#define STATIC_RUNTIME_PASSES_FREEZE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "torch/csrc/jit/api/module.h"

namespace static_runtime {

// What follows freezing, in place: traced models' aten::_convolution
// becomes the conv1d/conv2d/conv3d/conv_transpose1d/conv_transpose2d it was
// traced from (LibTorch's replaceConvolutionWithAtenConv; the same CPU
// kernel, so the same bits), so that the folds below and the runtime's
// convolution kernels see it; then what torch.jit.freeze does
// (OptimizeFrozenGraph: drop dropout and, with `optimize_numerics` as
// torch.jit.freeze's argument of that name, fold batch norm and add/mul
// constants into convolutions and linears, which changes the last bits of
// results).
void OptimizeFrozen(std::shared_ptr<torch::jit::Graph>& graph, bool optimize_numerics);

absl::StatusOr<torch::jit::Module> FreezeForInference(const torch::jit::Module& module,
                                                      const std::string& method_name,
                                                      bool optimize_numerics = true);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_FREEZE_H_
