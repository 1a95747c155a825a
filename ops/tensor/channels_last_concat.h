// aten::cat of 4-D channels-last tensors along channels (DenseNet's
// features, a fire module's expand branches): ATen's result is then
// channels-last too, and its TensorIterator copies each input into a
// strided slice of the result, 3-4x slower than copying each input's
// channels of one pixel after another, which this does. The values and
// layout are ATen's (a copy).
//
// ChannelsLastConcatSizes: the result's sizes when the copy applies, else
// nullopt (the caller runs ATen's op): at least one input, all plain CPU
// tensors (ops/core/direct_call.h) without names, of one dtype of 4 bytes, 4-D,
// equal off dim 1, `dim` 1 (or -3), every input channels-last by
// suggest_memory_format and dense in that layout (as ATen then makes the
// result channels-last).
// ChannelsLastConcatInto: copies `inputs` into `out`, which has those sizes,
// is channels-last and dense, of their dtype, and shares memory with none of
// them.
#ifndef STATIC_RUNTIME_OPS_TENSOR_CHANNELS_LAST_CONCAT_H_
#define STATIC_RUNTIME_OPS_TENSOR_CHANNELS_LAST_CONCAT_H_

#include <cstdint>
#include <optional>

#include "ATen/ATen.h"
#include "absl/types/span.h"

namespace static_runtime {

std::optional<at::DimVector> ChannelsLastConcatSizes(absl::Span<const at::Tensor> inputs,
                                                     int64_t dim);
void ChannelsLastConcatInto(absl::Span<const at::Tensor> inputs, at::Tensor& out);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_TENSOR_CHANNELS_LAST_CONCAT_H_
