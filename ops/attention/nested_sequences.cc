#include "ops/attention/nested_sequences.h"

#include <algorithm>
#include <utility>

#include "ATen/NestedTensorImpl.h"

namespace static_runtime {
namespace ops {

bool ReadSequences(const at::Tensor& t, at::ScalarType dtype, PackedSequences& out,
                   bool allow_empty) {
  const at::native::NestedTensorImpl* nested = at::native::get_nested_tensor_impl_or_null(t);
  if (nested == nullptr || !t.is_cpu() || t.scalar_type() != dtype) return false;
  const at::Tensor& sizes = nested->get_nested_size_tensor();
  if (sizes.dim() != 2 || sizes.size(1) != 2 || sizes.size(0) == 0 ||
      sizes.scalar_type() != at::kLong || !sizes.is_contiguous() ||
      !at::native::nested_tensor_impl_is_contiguous(nested)) {
    return false;
  }
  const int64_t count = sizes.size(0);
  const int64_t* size = sizes.data_ptr<int64_t>();
  out.width = size[1];
  out.lengths.resize(count);
  out.starts.resize(count);
  out.rows = 0;
  out.longest = 0;
  for (int64_t i = 0; i < count; ++i) {
    const int64_t length = size[2 * i], width = size[2 * i + 1];
    if (length < (allow_empty ? 0 : 1) || width != out.width) return false;
    out.lengths[i] = length;
    out.starts[i] = out.rows;
    out.rows += length;
    out.longest = std::max(out.longest, length);
  }
  if (out.width < 1 || out.longest < 1) return false;
  out.buffer = nested->get_buffer();
  if (out.buffer.numel() < out.rows * out.width) return false;
  out.sizes = &sizes;
  return true;
}

at::Tensor NestedFromBuffer(at::Tensor buffer, at::Tensor sizes) {
  return at::detail::make_tensor<at::native::NestedTensorImpl>(std::move(buffer), std::move(sizes));
}

at::Tensor NestedLike(const at::Tensor& like, at::Tensor buffer) {
  const at::native::NestedTensorImpl* nested = at::native::get_nested_tensor_impl(like);
  std::vector<int64_t> offsets = nested->get_offsets();
  return at::detail::make_tensor<at::native::NestedTensorImpl>(
      std::move(buffer), nested->get_nested_size_tensor(), nested->get_nested_stride_tensor(),
      std::move(offsets));
}

}  // namespace ops
}  // namespace static_runtime
