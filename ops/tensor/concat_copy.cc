#include "ops/tensor/concat_copy.h"

#include <array>
#include <cstring>

#include "ops/core/direct_call.h"

namespace static_runtime {
namespace {

constexpr int64_t kMaxRank = 3;

// `dim` wrapped into [0, rank), or -1 when out of range.
int64_t Wrap(int64_t dim, int64_t rank) {
  if (dim < -rank || dim >= rank) return -1;
  return dim < 0 ? dim + rank : dim;
}

// One input seen with the result's rank (stack: a size-1 dim at `dim`), in
// elements.
struct Strided {
  std::array<int64_t, kMaxRank> sizes{};
  std::array<int64_t, kMaxRank> strides{};
};

Strided AsResultRank(const at::Tensor& input, int64_t dim, bool stack, int64_t rank) {
  Strided view;
  for (int64_t k = 0, j = 0; k < rank; ++k) {
    if (stack && k == dim) {
      view.sizes[k] = 1;
      view.strides[k] = 0;
    } else {
      view.sizes[k] = input.size(j);
      view.strides[k] = input.stride(j);
      ++j;
    }
  }
  return view;
}

// Copies `view` (elements of type T from `source`) into the block of `out`
// (contiguous, with `out_strides`) that starts at `destination`.
template <typename T>
void CopyBlock(const Strided& view, int64_t rank, const T* source,
               const std::array<int64_t, kMaxRank>& out_strides, T* destination) {
  for (int64_t k = 0; k < rank; ++k) {
    if (view.sizes[k] == 0) return;
  }
  const int64_t last = rank - 1;
  const int64_t row = view.sizes[last];
  const int64_t source_step = view.strides[last];
  std::array<int64_t, kMaxRank> index{};
  while (true) {
    int64_t from = 0, to = 0;
    for (int64_t k = 0; k < last; ++k) {
      from += index[k] * view.strides[k];
      to += index[k] * out_strides[k];
    }
    const T* in = source + from;
    T* out = destination + to;
    if (source_step == 1) {
      std::memcpy(out, in, row * sizeof(T));
    } else {
      for (int64_t i = 0; i < row; ++i) out[i] = in[i * source_step];
    }
    int64_t k = last - 1;
    while (k >= 0 && ++index[k] == view.sizes[k]) index[k--] = 0;
    if (k < 0) return;
  }
}

template <typename T>
void ConcatAs(absl::Span<const at::Tensor> inputs, int64_t dim, bool stack, at::Tensor& out) {
  if (out.numel() == 0) return;  // (and its data pointer may be null)
  const int64_t rank = out.dim();
  std::array<int64_t, kMaxRank> out_strides{};
  for (int64_t k = 0; k < rank; ++k) out_strides[k] = out.stride(k);
  T* base = static_cast<T*>(out.data_ptr());
  int64_t offset = 0;  // along dim
  for (const at::Tensor& input : inputs) {
    const Strided view = AsResultRank(input, dim, stack, rank);
    CopyBlock<T>(view, rank, static_cast<const T*>(input.data_ptr()), out_strides,
                 base + offset * out_strides[dim]);
    offset += view.sizes[dim];
  }
}

}  // namespace

std::optional<at::DimVector> ConcatSizes(absl::Span<const at::Tensor> inputs, int64_t dim,
                                         bool stack) {
  if (inputs.empty()) return std::nullopt;
  const at::Tensor& first = inputs[0];
  const int64_t input_rank = first.dim();
  const int64_t rank = input_rank + (stack ? 1 : 0);
  if (rank < 1 || rank > kMaxRank || (!stack && input_rank == 0)) return std::nullopt;
  const int64_t wrapped = Wrap(dim, rank);
  if (wrapped < 0) return std::nullopt;
  const size_t element_size = first.element_size();
  if (element_size != 1 && element_size != 2 && element_size != 4 && element_size != 8) {
    return std::nullopt;
  }
  at::DimVector sizes(first.sizes().begin(), first.sizes().end());
  if (stack) {
    sizes.insert(sizes.begin() + wrapped, 0);
  } else {
    sizes[wrapped] = 0;
  }
  for (const at::Tensor& input : inputs) {
    if (!PlainCpuTensor(input) || input.has_names() || input.dim() != input_rank ||
        input.scalar_type() != first.scalar_type()) {
      return std::nullopt;
    }
    for (int64_t k = 0, j = 0; k < rank; ++k) {
      if (stack && k == wrapped) continue;
      if (k != wrapped && input.size(j) != sizes[k]) return std::nullopt;
      ++j;
    }
    sizes[wrapped] += stack ? 1 : input.size(wrapped);
  }
  int64_t elements = 1;
  for (int64_t size : sizes) elements *= size;
  if (elements > kMaxConcatElements) return std::nullopt;
  return sizes;
}

void ConcatInto(absl::Span<const at::Tensor> inputs, int64_t dim, bool stack, at::Tensor& out) {
  const int64_t wrapped = Wrap(dim, out.dim());
  switch (out.element_size()) {
    case 1:
      return ConcatAs<uint8_t>(inputs, wrapped, stack, out);
    case 2:
      return ConcatAs<uint16_t>(inputs, wrapped, stack, out);
    case 4:
      return ConcatAs<uint32_t>(inputs, wrapped, stack, out);
    default:
      return ConcatAs<uint64_t>(inputs, wrapped, stack, out);
  }
}

}  // namespace static_runtime
