// Where kernels may produce channels-last (NHWC) tensors instead of the
// contiguous ones ATen would: only where no one can tell. The kernels of the
// ops below give the same values in either layout (gelu's by computing as on
// a contiguous tensor, see ChannelsLastByChoice); what differs is the strides,
// which a caller sees on graph outputs and which decide whether aten::view
// succeeds. So a value may be channels-last only if each of its uses
//   - ignores its input's layout for its own result's strides (a
//     convolution, flatten/reshape, size, and the runtime's copy variants),
//     or
//   - is an elementwise op, pooling, batch_norm (and batch_norm_relu), cat
//     or mean, whose result then follows the input's layout and must itself
//     be allowed to be channels-last.
// A tensor put in a list (prim::ListConstruct, aten::append: DenseNet's
// features) follows the same rule through the list: the list may only be
// appended to, measured and concatenated (aten::cat, whose result follows).
// Graph outputs, views and any other op (in this block or a sub-block) keep
// the contiguous layout.
#ifndef STATIC_RUNTIME_OPS_CORE_CHANNELS_LAST_H_
#define STATIC_RUNTIME_OPS_CORE_CHANNELS_LAST_H_

#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

bool MayBeChannelsLast(const torch::jit::Value* value);

// Whether `value`, when it is channels-last, is so only by the choice above:
// it comes from a convolution (static_runtime::conv2d_fused) through ops that
// follow their input's layout, whose other tensor inputs are constants. The
// JIT then holds it contiguous (for a model fed contiguous images), and a
// kernel whose values depend on the layout computes as on that.
bool ChannelsLastByChoice(const torch::jit::Value* value);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_CORE_CHANNELS_LAST_H_
