// aten::_pack_padded_sequence(input, lengths, batch_first) -> (data,
// batch_sizes), what nn.utils.rnn.pack_padded_sequence calls: the rows of
// the padded batch that hold tokens, step by step (step t: the first
// batch_sizes[t] sequences, batch_sizes[t] the number of lengths above t),
// copied once each instead of ATen's slice, copy and cat per distinct
// length. Bit for bit ATen's (a copy). Taken for CPU inputs whose every
// token (the dimensions after time and batch) is one contiguous block, with
// lengths a 1-D int64 CPU tensor of one positive length per sequence,
// non-increasing, none longer than the input; anything else runs ATen's op,
// with its result or its error.
#include <cstring>
#include <utility>
#include <vector>

#include "ATen/ATen.h"
#include "ops/core/out_variant.h"

namespace static_runtime {
namespace {

void PackPaddedSequence(NodeIO& io) {
  const at::Tensor& input = io.Input(0).toTensor();
  const at::Tensor& lengths = io.Input(1).toTensor();
  const bool batch_first = io.Input(2).toBool();
  auto aten = [&] {
    auto [data, batch_sizes] = at::_pack_padded_sequence(input, lengths, batch_first);
    io.Output(0) = std::move(data);
    io.Output(1) = std::move(batch_sizes);
  };
  if (!PlainCpuTensor(input) || input.dim() < 2 || input.numel() == 0 || !PlainCpuTensor(lengths) ||
      lengths.scalar_type() != at::kLong || lengths.dim() != 1) {
    aten();
    return;
  }
  const at::Tensor x = batch_first ? input.transpose(0, 1) : input;  // [T, B, ...]
  const int64_t steps = x.size(0), batch = x.size(1);
  const at::Tensor token = x.select(0, 0).select(0, 0);
  if (lengths.size(0) != batch || !token.is_contiguous()) {
    aten();
    return;
  }
  const at::Tensor sorted = lengths.contiguous();
  const int64_t* length = sorted.data_ptr<int64_t>();
  int64_t rows = 0;
  for (int64_t b = 0; b < batch; ++b) {
    if (length[b] < 1 || length[b] > steps || (b > 0 && length[b] > length[b - 1])) {
      aten();
      return;
    }
    rows += length[b];
  }
  std::vector<int64_t> data_sizes = x.sizes().slice(1).vec();
  data_sizes[0] = rows;
  at::Tensor data = at::empty(data_sizes, x.options());
  at::Tensor batch_sizes = at::empty({length[0]}, lengths.options());
  int64_t* batch_size = batch_sizes.data_ptr<int64_t>();
  const size_t token_bytes = token.numel() * x.element_size();
  const char* from = static_cast<const char*>(x.data_ptr());
  char* to = static_cast<char*>(data.data_ptr());
  int64_t active = batch;
  for (int64_t t = 0; t < length[0]; ++t) {
    while (length[active - 1] <= t) --active;
    batch_size[t] = active;
    for (int64_t b = 0; b < active; ++b) {
      std::memcpy(to, from + (t * x.stride(0) + b * x.stride(1)) * x.element_size(), token_bytes);
      to += token_bytes;
    }
  }
  io.Output(0) = std::move(data);
  io.Output(1) = std::move(batch_sizes);
}

}  // namespace

void RegisterPackPaddedSequenceKernels(KernelRegistry& registry) {
  registry.Add(Native("aten::_pack_padded_sequence", "", PackPaddedSequence));
}

}  // namespace static_runtime
