// A non-contiguous tensor copied into a contiguous one a row at a time: the
// copy contiguous() and clone() make of a permuted view whose innermost
// elements stay adjacent (a channel shuffle's view(N, g, C/g, H, W)
// .transpose(1, 2): whole H x W planes in another order; attention's
// heads, transpose(1, 2) of [B, T, heads, D]: rows of D). ATen's copy_
// walks such a tensor through TensorIterator's loops, whose fixed cost a
// call and a row is most of the time on small planes (a channel shuffle of
// 116 planes of 8 x 8: 7.5 us).
//
// CopyRows: copies `source` into `target` (contiguous, of source's sizes
// and dtype, sharing no memory with it) and returns true where the rows
// are at least kMinRowBytes long: the source's innermost dimension has
// stride 1, merged with the dimensions outside it that continue it in
// memory. Otherwise it copies nothing and returns false (the caller copies
// otherwise). A copy: the same bits.
#ifndef STATIC_RUNTIME_OPS_TENSOR_ROW_COPY_H_
#define STATIC_RUNTIME_OPS_TENSOR_ROW_COPY_H_

#include <cstdint>

#include "ATen/ATen.h"

namespace static_runtime {

inline constexpr int64_t kMinRowBytes = 32;

bool CopyRows(const at::Tensor& source, at::Tensor& target);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_TENSOR_ROW_COPY_H_
