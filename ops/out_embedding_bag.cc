// Out-variant kernel for aten::embedding_bag in sum and mean mode, the
// pooling of ads-ranking models. LibTorch 1.13 has no out form for it, and
// its functional form also builds offset2bag, bag_size and max_indices
// tensors for the backward pass. This kernel claims only nodes whose three
// auxiliary outputs are never used: it sums the rows of each bag straight into
// the output (in index order, as ATen does, so results are bit-identical) and
// leaves the auxiliary outputs empty. Anything unusual (max mode, per-sample
// weights, 2-D indices, strided or non-float weights, offsets or indices out
// of range) goes to ATen's functional form, which gives its own result or
// error.
#include <cstring>

#include "ATen/ATen.h"
#include "ops/out_variant.h"

namespace static_runtime {
namespace {

constexpr int64_t kModeSum = 0;
constexpr int64_t kModeMean = 1;

struct Arguments {
  const at::Tensor& weight;
  const at::Tensor& indices;
  const at::Tensor& offsets;
  int64_t mode;
  bool has_per_sample_weights;
  bool include_last_offset;
  int64_t padding_idx;  // -1: none
};

Arguments Read(const NodeIO& io) {
  const bool has_padding_idx = io.num_inputs() > 8;
  int64_t padding_idx = -1;
  if (has_padding_idx && !io.Input(8).isNone()) {
    padding_idx = io.Input(8).toInt();
    if (padding_idx < 0) padding_idx += TensorArg(io, 0).size(0);
  }
  return {TensorArg(io, 0),         TensorArg(io, 1),       TensorArg(io, 2),
          io.Input(4).toInt(),      !io.Input(6).isNone(),  io.Input(7).toBool(),
          padding_idx};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor> Functional(const NodeIO& io,
                                                                       const Arguments& a) {
  c10::optional<int64_t> padding_idx;
  if (io.num_inputs() > 8) padding_idx = io.Input(8).toOptional<int64_t>();
  return at::embedding_bag(a.weight, a.indices, a.offsets, io.Input(3).toBool(), a.mode,
                           io.Input(5).toBool(), OptionalTensorArg(io, 6),
                           a.include_last_offset, padding_idx);
}

// Bag b covers indices [begin(b), end(b)). Valid when offsets start at 0,
// never decrease and stay within the indices, and every index is a row.
template <typename Index>
bool Valid(const Arguments& a, int64_t bags) {
  const Index* offsets = a.offsets.data_ptr<Index>();
  const Index* indices = a.indices.data_ptr<Index>();
  const int64_t num_indices = a.indices.numel();
  const int64_t rows = a.weight.size(0);
  if (a.offsets.numel() == 0 || offsets[0] != 0) return false;
  for (int64_t b = 1; b < a.offsets.numel(); ++b) {
    if (offsets[b] < offsets[b - 1] || offsets[b] > num_indices) return false;
  }
  if (a.include_last_offset && offsets[bags] != num_indices) return false;
  for (int64_t i = 0; i < num_indices; ++i) {
    if (indices[i] < 0 || indices[i] >= rows) return false;
  }
  return true;
}

template <typename Scalar, typename Index>
void Pool(const Arguments& a, int64_t bags, at::Tensor& out) {
  const Index* offsets = a.offsets.data_ptr<Index>();
  const Index* indices = a.indices.data_ptr<Index>();
  const Scalar* weight = a.weight.data_ptr<Scalar>();
  Scalar* output = out.data_ptr<Scalar>();
  const int64_t dim = a.weight.size(1);
  const int64_t num_indices = a.indices.numel();
  std::memset(output, 0, sizeof(Scalar) * bags * dim);
  for (int64_t b = 0; b < bags; ++b) {
    const int64_t begin = offsets[b];
    const int64_t end = b + 1 < a.offsets.numel() ? offsets[b + 1] : num_indices;
    Scalar* row_out = output + b * dim;
    int64_t count = 0;
    for (int64_t i = begin; i < end; ++i) {
      if (indices[i] == a.padding_idx) continue;
      const Scalar* row = weight + indices[i] * dim;
      for (int64_t j = 0; j < dim; ++j) row_out[j] += row[j];
      ++count;
    }
    if (a.mode == kModeMean && count > 1) {
      const Scalar divisor = static_cast<Scalar>(count);
      for (int64_t j = 0; j < dim; ++j) row_out[j] /= divisor;
    }
  }
}

bool Supported(const Arguments& a) {
  const at::ScalarType index_type = a.indices.scalar_type();
  return (a.mode == kModeSum || a.mode == kModeMean) && !a.has_per_sample_weights &&
         (a.weight.scalar_type() == at::kFloat || a.weight.scalar_type() == at::kDouble) &&
         a.weight.dim() == 2 && a.weight.is_contiguous() && !a.weight.requires_grad() &&
         a.indices.dim() == 1 && a.offsets.dim() == 1 && a.indices.is_contiguous() &&
         a.offsets.is_contiguous() && (index_type == at::kLong || index_type == at::kInt) &&
         a.offsets.scalar_type() == index_type;
}

void EmbeddingBag(NodeIO& io) {
  const Arguments a = Read(io);
  const int64_t bags = a.offsets.dim() == 1 ? a.offsets.numel() - (a.include_last_offset ? 1 : 0) : 0;
  bool valid = Supported(a) && bags >= 0;
  if (valid) {
    valid = a.indices.scalar_type() == at::kLong ? Valid<int64_t>(a, bags) : Valid<int32_t>(a, bags);
  }
  if (!valid) {
    auto [output, offset2bag, bag_size, max_indices] = Functional(io, a);
    io.Output(0) = std::move(output);
    io.Output(1) = std::move(offset2bag);
    io.Output(2) = std::move(bag_size);
    io.Output(3) = std::move(max_indices);
    return;
  }
  WriteOutput(io, 0, a.weight.scalar_type(), [&] { return std::get<0>(Functional(io, a)); },
              [&](at::Tensor& out) {
                out.resize_({bags, a.weight.size(1)});
                AT_DISPATCH_FLOATING_TYPES(a.weight.scalar_type(), "embedding_bag", [&] {
                  if (a.indices.scalar_type() == at::kLong) {
                    Pool<scalar_t, int64_t>(a, bags, out);
                  } else {
                    Pool<scalar_t, int32_t>(a, bags, out);
                  }
                });
              });
  // The unused auxiliary outputs stay empty.
  for (size_t i = 1; i < 4; ++i) ReusableOrNewOutput(io, i, at::kLong);
}

// Claims nodes whose offset2bag, bag_size and max_indices are never used.
Kernel ForPooledOutputOnly(const torch::jit::Node* node) {
  for (size_t i = 1; i < node->outputs().size(); ++i) {
    if (node->output(i)->hasUses()) return nullptr;
  }
  return EmbeddingBag;
}

const bool kRegistered = [] {
  for (const char* overload : {"", "padding_idx"}) {
    KernelRegistry::Global().RegisterOverload("aten::embedding_bag", overload,
                                              KernelKind::kOutVariant, ForPooledOutputOnly);
  }
  return true;
}();

}  // namespace
}  // namespace static_runtime
