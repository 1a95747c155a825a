// Nested tensors of sequences as the fast path of nn.TransformerEncoder
// makes them (torch._nested_tensor_from_mask) and passes them from layer to
// layer: `count` matrices [length_i, width], stored one after another in one
// buffer. The kernels of that path read such a tensor as the rows of one
// [rows, width] matrix and make their results the same way.
//
// ReadSequences: true when `t` is a contiguous nested CPU tensor of `dtype`
// whose every component is a [length, width] matrix, length >= 1 (or >= 0
// with `allow_empty`, as long as one is not empty), filling `out`; false for
// anything else (a dense tensor, another dtype or rank, gaps or strides in
// the buffer, an empty sequence), leaving `out` unspecified.
// NestedFromBuffer: a nested tensor of `sizes` ([count, 2] int64: each
// component's length and width, as ATen keeps them) over `buffer`
// (contiguous, exactly the components' elements), which it shares.
// NestedLike: a nested tensor of the components of `like` (a tensor
// ReadSequences took) over `buffer`, sharing `like`'s sizes and strides.
#ifndef STATIC_RUNTIME_OPS_ATTENTION_NESTED_SEQUENCES_H_
#define STATIC_RUNTIME_OPS_ATTENTION_NESTED_SEQUENCES_H_

#include <cstdint>
#include <vector>

#include "ATen/ATen.h"

namespace static_runtime {
namespace ops {

struct PackedSequences {
  std::vector<int64_t> lengths;  // rows of each sequence
  std::vector<int64_t> starts;   // the first row of each sequence in the buffer
  int64_t rows = 0;              // the sum of the lengths
  int64_t width = 0;
  int64_t longest = 0;
  const at::Tensor* sizes = nullptr;  // the nested tensor's [count, 2] sizes
  at::Tensor buffer;                  // [rows * width], contiguous
};

bool ReadSequences(const at::Tensor& t, at::ScalarType dtype, PackedSequences& out,
                   bool allow_empty = false);

at::Tensor NestedFromBuffer(at::Tensor buffer, at::Tensor sizes);

at::Tensor NestedLike(const at::Tensor& like, at::Tensor buffer);

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_ATTENTION_NESTED_SEQUENCES_H_
