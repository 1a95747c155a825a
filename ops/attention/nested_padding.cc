// The kernels that turn a padded batch of sequences into a nested tensor
// and back, around the layers of nn.TransformerEncoder's fast path with a
// key padding mask (ops/attention/nested_sequences.h):
//   aten::_nested_tensor_from_mask_left_aligned(t, mask) -> bool
//   aten::_nested_tensor_from_mask(t, mask, mask_check) -> nested tensor
//   aten::to_padded_tensor(nested, padding, output_size=None), out variant
// ATen 1.13 computes the first two with a dozen small tensors (a cat, an
// argmin, a cumsum, a masked_select); here each sequence's length is read
// off its mask row and its rows are copied once. Sequence i keeps the first
// sum(mask[i]) rows of t[i] (what ATen keeps; with mask_check, the mask must
// be a prefix of trues, else ATen's error). Arguments these do not take (a
// mask that is not a boolean [N, L] matrix of a [N, L, D] input's size,
// tensors not on the CPU, an output size) run ATen's op, with its result or
// its error. The copies are bit for bit.
#include <algorithm>
#include <cstring>
#include <vector>

#include "ATen/ATen.h"
#include "ops/attention/nested_sequences.h"
#include "ops/core/out_variant.h"

namespace static_runtime {
namespace {

// The length of each row's mask (its count of trues), and whether every
// row's trues come first: what ATen computes with cumsum and argmin.
struct MaskPrefixes {
  std::vector<int64_t> lengths;
  bool left_aligned = true;
};

// False unless `t` [N, L, D] and `mask` [N, L] boolean are CPU tensors
// ATen's ops accept; else fills `out`.
bool ReadMask(const at::Tensor& t, const at::Tensor& mask, MaskPrefixes& out) {
  if (!PlainCpuTensor(t) || !PlainCpuTensor(mask) || mask.scalar_type() != at::kBool ||
      mask.dim() != 2 || t.dim() != 3 || mask.size(0) != t.size(0) || mask.size(1) != t.size(1)) {
    return false;
  }
  const at::Tensor m = mask.contiguous();
  const bool* data = m.data_ptr<bool>();
  const int64_t rows = m.size(0), columns = m.size(1);
  out.lengths.resize(rows);
  out.left_aligned = true;
  for (int64_t r = 0; r < rows; ++r) {
    const bool* row = data + r * columns;
    const int64_t count = std::count(row, row + columns, true);
    out.lengths[r] = count;
    if (std::find(row, row + columns, false) - row != count) out.left_aligned = false;
  }
  return true;
}

void NestedFromMask(NodeIO& io) {
  const at::Tensor& t = io.Input(0).toTensor();
  const at::Tensor& mask = io.Input(1).toTensor();
  const bool mask_check = io.Input(2).toBool();
  MaskPrefixes prefixes;
  if (!ReadMask(t, mask, prefixes) || (mask_check && !prefixes.left_aligned)) {
    io.Output(0) = at::_nested_tensor_from_mask(t, mask, mask_check);
    return;
  }
  const at::Tensor source = t.contiguous();
  const int64_t batch = t.size(0), tokens = t.size(1), width = t.size(2);
  int64_t rows = 0;
  for (int64_t length : prefixes.lengths) rows += length;
  at::Tensor sizes = at::empty({batch, 2}, at::kLong);
  int64_t* size = sizes.data_ptr<int64_t>();
  at::Tensor buffer = at::empty({rows * width}, t.options());
  const size_t row_bytes = width * t.element_size();
  const char* from = static_cast<const char*>(source.data_ptr());
  char* to = static_cast<char*>(buffer.data_ptr());
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t length = prefixes.lengths[b];
    size[2 * b] = length;
    size[2 * b + 1] = width;
    if (length == 0) continue;
    std::memcpy(to, from + b * tokens * row_bytes, length * row_bytes);
    to += length * row_bytes;
  }
  io.Output(0) = ops::NestedFromBuffer(std::move(buffer), std::move(sizes));
}

void LeftAligned(NodeIO& io) {
  const at::Tensor& t = io.Input(0).toTensor();
  const at::Tensor& mask = io.Input(1).toTensor();
  MaskPrefixes prefixes;
  io.Output(0) = ReadMask(t, mask, prefixes) ? prefixes.left_aligned
                                             : at::_nested_tensor_from_mask_left_aligned(t, mask);
}

template <typename T>
void Pad(const ops::PackedSequences& seqs, double padding, T* out) {
  const T fill = static_cast<T>(padding);
  const T* buffer = seqs.buffer.data_ptr<T>();
  const int64_t width = seqs.width, block = seqs.longest * width;
  for (size_t i = 0; i < seqs.lengths.size(); ++i) {
    const int64_t filled = seqs.lengths[i] * width;
    T* target = out + static_cast<int64_t>(i) * block;
    std::copy(buffer + seqs.starts[i] * width, buffer + seqs.starts[i] * width + filled, target);
    std::fill(target + filled, target + block, fill);
  }
}

void ToPadded(NodeIO& io) {
  const at::Tensor& nested = io.Input(0).toTensor();
  const double padding = io.Input(1).toDouble();
  thread_local ops::PackedSequences seqs;
  const at::ScalarType dtype = nested.scalar_type();
  if (!io.Input(2).isNone() || (dtype != at::kFloat && dtype != at::kDouble) ||
      !ops::ReadSequences(nested, dtype, seqs, /*allow_empty=*/true)) {
    std::vector<int64_t> output_size;
    if (!io.Input(2).isNone()) output_size = io.Input(2).toIntVector();
    io.Output(0) = nested.to_padded_tensor(
        padding, io.Input(2).isNone() ? at::OptionalIntArrayRef() : at::IntArrayRef(output_size));
    return;
  }
  const int64_t batch = static_cast<int64_t>(seqs.lengths.size());
  at::Tensor& out = ContiguousOutput(io, 0, dtype, {batch, seqs.longest, seqs.width});
  if (dtype == at::kFloat) {
    Pad(seqs, padding, out.data_ptr<float>());
  } else {
    Pad(seqs, padding, out.data_ptr<double>());
  }
  seqs.buffer.reset();  // the thread keeps no reference to the caller's tensor
}

}  // namespace

void RegisterNestedPaddingKernels(KernelRegistry& registry) {
  registry.Add(Native("aten::_nested_tensor_from_mask", "", NestedFromMask));
  registry.Add(Native("aten::_nested_tensor_from_mask_left_aligned", "", LeftAligned));
  registry.Add(OutVariant("aten::to_padded_tensor", "", ToPadded));
}

}  // namespace static_runtime
