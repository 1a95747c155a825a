#include "ops/tensor/channels_last_concat.h"

#include <cstring>
#include <vector>

#include "ops/core/direct_call.h"
#include "ops/core/per_isa.h"

namespace static_runtime {
namespace {

// One input: its pixels' channels, `channels` 4-byte values each.
struct Source {
  const uint32_t* data;
  int64_t channels;
};

// Per pixel, each source's channels in turn, into rows of `out_channels`.
STATIC_RUNTIME_PER_ISA void CopyPixels(const Source* sources, int64_t count, int64_t pixels,
                                       int64_t out_channels, uint32_t* out) {
  for (int64_t p = 0; p < pixels; ++p) {
    uint32_t* to = out + p * out_channels;
    for (int64_t s = 0; s < count; ++s) {
      const int64_t channels = sources[s].channels;
      const uint32_t* from = sources[s].data + p * channels;
      int64_t c = 0;
      // (Fixed-size copies: a vector move each, not a call.)
      for (; c + 8 <= channels; c += 8) std::memcpy(to + c, from + c, 8 * sizeof(uint32_t));
      for (; c < channels; ++c) to[c] = from[c];
      to += channels;
    }
  }
}

}  // namespace

std::optional<at::DimVector> ChannelsLastConcatSizes(absl::Span<const at::Tensor> inputs,
                                                     int64_t dim) {
  if (inputs.empty() || (dim != 1 && dim != -3)) return std::nullopt;
  const at::Tensor& first = inputs[0];
  if (first.dim() != 4 || first.element_size() != 4) return std::nullopt;
  at::DimVector sizes(first.sizes().begin(), first.sizes().end());
  sizes[1] = 0;
  for (const at::Tensor& input : inputs) {
    if (!PlainCpuTensor(input) || input.has_names() || input.dim() != 4 ||
        input.scalar_type() != first.scalar_type() || input.size(0) != sizes[0] ||
        input.size(2) != sizes[2] || input.size(3) != sizes[3] ||
        input.suggest_memory_format() != at::MemoryFormat::ChannelsLast ||
        !input.is_contiguous(at::MemoryFormat::ChannelsLast)) {
      return std::nullopt;
    }
    sizes[1] += input.size(1);
  }
  return sizes;
}

void ChannelsLastConcatInto(absl::Span<const at::Tensor> inputs, at::Tensor& out) {
  if (out.numel() == 0) return;  // (and its data pointer may be null)
  std::vector<Source> sources;
  sources.reserve(inputs.size());
  for (const at::Tensor& input : inputs) {
    if (input.size(1) > 0) {
      sources.push_back({static_cast<const uint32_t*>(input.data_ptr()), input.size(1)});
    }
  }
  CopyPixels(sources.data(), static_cast<int64_t>(sources.size()),
             out.size(0) * out.size(2) * out.size(3), out.size(1),
             static_cast<uint32_t*>(out.data_ptr()));
}

}  // namespace static_runtime
