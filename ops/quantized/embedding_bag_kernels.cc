// Out-variant kernels for the row-wise quantized embedding bags of ads
// models: quantized::embedding_bag_byte_rowwise_offsets and
// _4bit_rowwise_offsets (a packed uint8 table as a tensor), and
// quantized::embedding_bag_byte and _4bit (torch.ao.nn.quantized.EmbeddingBag:
// the table inside a packed-parameters object, read once when the model
// loads). Sum pooling into planned memory, bit for bit ATen's (see
// rowwise_embedding_bag.h; LibTorch 1.13 without FBGEMM ignores `mode` and
// sums, and so do these). Anything unusual (pruned tables, 2-D indices with
// include_last_offset, offsets that do not start at 0, decrease or pass the
// indices, indices out of range, non-float per-sample weights, strided
// tables) runs ATen's op, which gives its own result or error.
#include <algorithm>
#include <optional>
#include <utility>

#include "ATen/ATen.h"
#include "ATen/core/dispatch/Dispatcher.h"
#include "ATen/native/quantized/cpu/fbgemm_utils.h"
#include "ops/core/out_variant.h"
#include "ops/quantized/rowwise_embedding_bag.h"
#include "torch/csrc/jit/ir/constants.h"

namespace static_runtime {
namespace {

// The inputs every form shares, from input 1 on: indices, offsets?,
// scale_grad_by_freq, mode, pruned_weights, per_sample_weights?,
// compressed_indices_mapping?, include_last_offset.
struct BagArguments {
  const at::Tensor& indices;
  c10::optional<at::Tensor> offsets;
  bool pruned_weights;
  c10::optional<at::Tensor> per_sample_weights;
  bool include_last_offset;
};

BagArguments ReadBagArguments(const NodeIO& io) {
  return {TensorArg(io, 1), OptionalTensorArg(io, 2), io.Input(5).toBool(),
          OptionalTensorArg(io, 6), io.Input(8).toBool()};
}

bool IndexType(const at::Tensor& tensor) {
  return tensor.scalar_type() == at::kInt || tensor.scalar_type() == at::kLong;
}

template <typename T>
bool IndicesInRange(const at::Tensor& indices, int64_t rows) {
  const T* data = indices.data_ptr<T>();
  return std::all_of(data, data + indices.numel(),
                     [rows](T index) { return index >= 0 && index < rows; });
}

// Bags of 1-D indices: offsets start at 0 and never decrease nor pass the
// indices (where ATen's loop, which starts each bag where the last ended,
// would read something else).
template <typename T>
bool OffsetsValid(const at::Tensor& offsets, int64_t num_indices) {
  const T* data = offsets.data_ptr<T>();
  if (offsets.numel() == 0) return true;
  if (data[0] != 0) return false;
  for (int64_t i = 1; i < offsets.numel(); ++i) {
    if (data[i] < data[i - 1] || data[i] > num_indices) return false;
  }
  return true;
}

// Pools `a` over `table` into output 0, or returns false for ATen's op.
bool PoolInto(NodeIO& io, const quantized::RowwiseTable& table, const BagArguments& a) {
  const at::Tensor& indices = a.indices;
  if (a.pruned_weights || !IndexType(indices) || !indices.is_contiguous()) return false;
  if (a.per_sample_weights.has_value() && (a.per_sample_weights->scalar_type() != at::kFloat ||
                                           !a.per_sample_weights->is_contiguous() ||
                                           a.per_sample_weights->numel() != indices.numel())) {
    return false;
  }
  const bool in_range =
      AT_DISPATCH_INDEX_TYPES(indices.scalar_type(), "rowwise_embedding_bag",
                              [&] { return IndicesInRange<index_t>(indices, table.rows); });
  if (!in_range) return false;
  const float* weights =
      a.per_sample_weights.has_value() ? a.per_sample_weights->data_ptr<float>() : nullptr;
  const int64_t dim = table.dim();
  if (indices.dim() == 2) {
    // A batch of fixed-length bags (ATen makes the offsets with arange).
    if (a.offsets.has_value() || a.include_last_offset) return false;
    const int64_t bags = indices.size(0);
    const int64_t length = indices.size(1);
    at::Tensor& out = ContiguousOutput(io, 0, at::kFloat, {bags, dim});
    float* data = out.data_ptr<float>();
    AT_DISPATCH_INDEX_TYPES(indices.scalar_type(), "rowwise_embedding_bag", [&] {
      const int64_t start = 0;
      for (int64_t b = 0; b < bags; ++b) {
        quantized::PoolBags(table, indices.data_ptr<index_t>() + b * length, &start, length,
                            weights == nullptr ? nullptr : weights + b * length, 1, data + b * dim);
      }
    });
    return true;
  }
  if (indices.dim() != 1 || !a.offsets.has_value()) return false;
  const at::Tensor& offsets = *a.offsets;
  if (offsets.dim() != 1 || !IndexType(offsets) || !offsets.is_contiguous()) return false;
  const bool valid = AT_DISPATCH_INDEX_TYPES(offsets.scalar_type(), "rowwise_embedding_bag", [&] {
    return OffsetsValid<index_t>(offsets, indices.numel());
  });
  if (!valid) return false;
  const int64_t num_offsets = offsets.numel();
  if (a.include_last_offset && num_offsets == 0) return false;
  const int64_t bags = a.include_last_offset ? num_offsets - 1 : num_offsets;
  at::Tensor& out = ContiguousOutput(io, 0, at::kFloat, {bags, dim});
  AT_DISPATCH_INDEX_TYPES(indices.scalar_type(), "rowwise_embedding_bag", [&] {
    const index_t* index_data = indices.data_ptr<index_t>();
    using Index = index_t;
    AT_DISPATCH_INDEX_TYPES(offsets.scalar_type(), "rowwise_embedding_bag", [&] {
      const index_t* starts = offsets.data_ptr<index_t>();
      const int64_t last_end =
          a.include_last_offset ? static_cast<int64_t>(starts[bags]) : indices.numel();
      quantized::PoolBags<Index, index_t>(table, index_data, starts, last_end, weights, bags,
                                          out.data_ptr<float>());
    });
  });
  return true;
}

// A packed uint8 table of `bits` as ATen's kernels read it, or nullopt.
std::optional<quantized::RowwiseTable> TableOf(const at::Tensor& packed, int bits) {
  if (packed.scalar_type() != at::kByte || packed.dim() != 2 || !packed.is_contiguous() ||
      packed.size(1) < (bits == 8 ? 8 : 4)) {
    return std::nullopt;
  }
  return quantized::RowwiseTable{packed.data_ptr<uint8_t>(), packed.size(0), packed.size(1), bits};
}

// quantized::embedding_bag_{byte,4bit}_rowwise_offsets: the table is input 0.
void RegisterRowwiseOffsets(KernelRegistry& registry, const char* name, int bits) {
  const c10::OperatorHandle op = c10::Dispatcher::singleton().findSchemaOrThrow(name, "");
  registry.Add(OutVariant(name, "", [op, bits](NodeIO& io) {
    const std::optional<quantized::RowwiseTable> table = TableOf(TensorArg(io, 0), bits);
    if (table.has_value() && PoolInto(io, *table, ReadBagArguments(io))) return;
    torch::jit::Stack stack;
    for (size_t i = 0; i < io.num_inputs(); ++i) stack.push_back(io.Input(i));
    op.callBoxed(&stack);
    io.Output(0) = std::move(stack[0]);
  }));
}

// The packed table of a torch.ao.nn.quantized.EmbeddingBag's parameters, if
// they are LibTorch's own of `bits`.
std::optional<at::Tensor> PackedTable(const c10::IValue& params, int bits) {
  if (!params.isCustomClass()) return std::nullopt;
  const auto* packed = dynamic_cast<const PackedEmbeddingBagWeight*>(
      params.toCustomClass<EmbeddingPackedParamsBase>().get());
  if (packed == nullptr || packed->bit_rate() != bits || !TableOf(packed->packed_w, bits)) {
    return std::nullopt;
  }
  return packed->packed_w;
}

// quantized::embedding_bag_{byte,4bit}: the parameters are input 0, a
// constant of the frozen model whose table is read once; else read per call.
void RegisterPackedParams(KernelRegistry& registry, const char* name, int bits) {
  registry.Add(
      {KernelOp::Overload(name, ""), NodeKind::kOutVariant,
       [bits](const torch::jit::Node* node) -> KernelOffer {
         std::optional<at::Tensor> constant_table;
         if (c10::optional<c10::IValue> params = torch::jit::toIValue(node->input(0))) {
           constant_table = PackedTable(*params, bits);
         }
         return [bits, constant_table](NodeIO& io) {
           const std::optional<at::Tensor> table =
               constant_table.has_value() ? constant_table : PackedTable(io.Input(0), bits);
           const BagArguments a = ReadBagArguments(io);
           if (table.has_value() && PoolInto(io, *TableOf(*table, bits), a)) return;
           auto params = io.Input(0).toCustomClass<EmbeddingPackedParamsBase>();
           io.Output(0) =
               bits == 8 ? params->embeddingbag_byte(a.indices, a.offsets, a.pruned_weights,
                                                     a.per_sample_weights, OptionalTensorArg(io, 7),
                                                     a.include_last_offset, false)
                         : params->embeddingbag_4bit(a.indices, a.offsets, a.pruned_weights,
                                                     a.per_sample_weights, OptionalTensorArg(io, 7),
                                                     a.include_last_offset, false);
         };
       }});
}

}  // namespace

void RegisterEmbeddingBagKernels(KernelRegistry& registry) {
  RegisterRowwiseOffsets(registry, "quantized::embedding_bag_byte_rowwise_offsets", 8);
  RegisterRowwiseOffsets(registry, "quantized::embedding_bag_4bit_rowwise_offsets", 4);
  RegisterPackedParams(registry, "quantized::embedding_bag_byte", 8);
  RegisterPackedParams(registry, "quantized::embedding_bag_4bit", 4);
}

}  // namespace static_runtime
