// cat and stack of small tensors as plain strided copies. ATen's cat_out
// copies an input that is not contiguous through a narrow and a copy_ (two
// dispatches and a TensorIterator per input) and stack_out unsqueezes every
// input first; for the few hundred elements of an ads model's features that
// is most of the cost. The result is what at::cat / at::stack return: the
// same values, a contiguous tensor of the same sizes and dtype.
//
// ConcatSizes: the result's sizes when the copy applies, else nullopt (the
// caller runs ATen's op, which gives its result or its error): at least one
// input, all plain CPU tensors (ops/core/direct_call.h) without names, of one
// dtype whose elements are 1, 2, 4 or 8 bytes, of one rank; a result of rank
// 1 to 3 (ATen may give 4-D and 5-D results a channels-last layout) with at
// most kMaxElements elements; sizes equal off `dim`, `dim` in range (cat: of
// rank >= 1 inputs).
// ConcatInto: copies `inputs` into `out`, which has those sizes and is
// contiguous, of their dtype, and shares memory with none of them.
#ifndef STATIC_RUNTIME_OPS_TENSOR_CONCAT_COPY_H_
#define STATIC_RUNTIME_OPS_TENSOR_CONCAT_COPY_H_

#include <cstdint>
#include <optional>

#include "ATen/ATen.h"
#include "absl/types/span.h"

namespace static_runtime {

inline constexpr int64_t kMaxConcatElements = 1 << 15;

std::optional<at::DimVector> ConcatSizes(absl::Span<const at::Tensor> inputs, int64_t dim,
                                         bool stack);
void ConcatInto(absl::Span<const at::Tensor> inputs, int64_t dim, bool stack, at::Tensor& out);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_TENSOR_CONCAT_COPY_H_
