// Out-variant kernel for aten::embedding_bag in sum and mean mode, the
// pooling of ads-ranking models. LibTorch 1.13 has no out form for it, and
// its functional form also builds offset2bag, bag_size and max_indices
// tensors for the backward pass. This kernel claims only nodes whose three
// auxiliary outputs are never used: it sums the rows of each bag straight into
// the output (in index order, as ATen does, so results are bit-identical) and
// leaves the auxiliary outputs empty. Float tables run an AVX2 loop (where
// the CPU has it) that prefetches the rows ahead, as ATen's own (caffe2
// perfkernels) loop does; 187 -> 14-17 us against the plain loop on a 20000 x 64
// table. Anything unusual (max mode, per-sample
// weights, 2-D indices, strided or non-float weights, offsets or indices out
// of range) goes to ATen's functional form, which gives its own result or
// error.
#include <immintrin.h>

#include <algorithm>
#include <utility>

#include "ATen/ATen.h"
#include "ops/core/cpu_isa.h"
#include "ops/core/out_variant.h"

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
  return {TensorArg(io, 0),      TensorArg(io, 1),     TensorArg(io, 2), io.Input(4).toInt(),
          !io.Input(6).isNone(), io.Input(7).toBool(), padding_idx};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor> Functional(const NodeIO& io,
                                                                      const Arguments& a) {
  c10::optional<int64_t> padding_idx;
  if (io.num_inputs() > 8) padding_idx = io.Input(8).toOptional<int64_t>();
  return at::embedding_bag(a.weight, a.indices, a.offsets, io.Input(3).toBool(), a.mode,
                           io.Input(5).toBool(), OptionalTensorArg(io, 6), a.include_last_offset,
                           padding_idx);
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

// Bag b of `a` (see Valid) as [begin, end) of its indices.
template <typename Index>
std::pair<int64_t, int64_t> BagRange(const Arguments& a, const Index* offsets, int64_t b) {
  const int64_t end = b + 1 < a.offsets.numel() ? offsets[b + 1] : a.indices.numel();
  return {offsets[b], end};
}

// Sums bag [begin, end)'s rows into `row_out` from column `column` on
// (starting from zero, in index order), then divides the whole row by the
// bag's size in mean mode.
template <typename Scalar, typename Index>
void SumBagFrom(const Arguments& a, const Scalar* weight, const Index* indices, int64_t begin,
                int64_t end, int64_t column, Scalar* row_out) {
  const int64_t dim = a.weight.size(1);
  std::fill(row_out + column, row_out + dim, Scalar(0));
  int64_t count = 0;
  for (int64_t i = begin; i < end; ++i) {
    if (indices[i] == a.padding_idx) continue;
    const Scalar* row = weight + indices[i] * dim;
    for (int64_t j = column; j < dim; ++j) row_out[j] += row[j];
    ++count;
  }
  if (a.mode == kModeMean && count > 1) {
    const Scalar divisor = static_cast<Scalar>(count);
    for (int64_t j = 0; j < dim; ++j) row_out[j] /= divisor;
  }
}

template <typename Scalar, typename Index>
void Pool(const Arguments& a, int64_t bags, at::Tensor& out) {
  const Index* offsets = a.offsets.data_ptr<Index>();
  const Index* indices = a.indices.data_ptr<Index>();
  const Scalar* weight = a.weight.data_ptr<Scalar>();
  Scalar* output = out.data_ptr<Scalar>();
  const int64_t dim = a.weight.size(1);
  for (int64_t b = 0; b < bags; ++b) {
    const auto [begin, end] = BagRange(a, offsets, b);
    SumBagFrom(a, weight, indices, begin, end, /*column=*/0, output + b * dim);
  }
}

// Pool for float weights with AVX2 (the same sums, so the same bits: each
// output element is 0 + row_1 + row_2 + ... in index order, as above). A
// bag's sum of up to 64 columns is kept in registers while its rows are
// added, and the rows a few indices ahead are prefetched (rows of a large
// table are far apart; each misses the cache unless fetched early).
constexpr int64_t kPrefetchAhead = 16;

// Sums the bag's columns from `*column` on, kVectors * 8 at a time, while
// that many remain; advances `*column`.
template <int kVectors, typename Index>
__attribute__((target("avx2"), always_inline)) inline void SumColumnsAvx2(
    const float* weight, int64_t dim, const Index* indices, int64_t begin, int64_t end,
    int64_t last_index, int64_t padding_idx, float* row_out, int64_t* column) {
  for (; *column + 8 * kVectors <= dim; *column += 8 * kVectors) {
    const float* columns = weight + *column;
    __m256 sum[kVectors];  // unrolled loops keep it in registers
#pragma GCC unroll 8
    for (int v = 0; v < kVectors; ++v) sum[v] = _mm256_setzero_ps();
    for (int64_t i = begin; i < end; ++i) {
      const float* ahead = columns + indices[std::min(i + kPrefetchAhead, last_index)] * dim;
#pragma GCC unroll 4
      for (int v = 0; v < kVectors; v += 2) {  // each 64-byte line
        _mm_prefetch(reinterpret_cast<const char*>(ahead + 8 * v), _MM_HINT_T0);
      }
      if (indices[i] == padding_idx) continue;
      const float* row = columns + indices[i] * dim;
#pragma GCC unroll 8
      for (int v = 0; v < kVectors; ++v) {
        sum[v] = _mm256_add_ps(sum[v], _mm256_loadu_ps(row + 8 * v));
      }
    }
#pragma GCC unroll 8
    for (int v = 0; v < kVectors; ++v) _mm256_storeu_ps(row_out + *column + 8 * v, sum[v]);
  }
}

template <typename Index>
__attribute__((target("avx2"))) void PoolFloatAvx2(const Arguments& a, int64_t bags,
                                                   at::Tensor& out) {
  const Index* offsets = a.offsets.data_ptr<Index>();
  const Index* indices = a.indices.data_ptr<Index>();
  const float* weight = a.weight.data_ptr<float>();
  float* output = out.data_ptr<float>();
  const int64_t dim = a.weight.size(1);
  const int64_t last_index = std::max<int64_t>(a.indices.numel() - 1, 0);
  for (int64_t b = 0; b < bags; ++b) {
    const auto [begin, end] = BagRange(a, offsets, b);
    float* row_out = output + b * dim;
    int64_t column = 0;
    SumColumnsAvx2<8>(weight, dim, indices, begin, end, last_index, a.padding_idx, row_out,
                      &column);
    SumColumnsAvx2<4>(weight, dim, indices, begin, end, last_index, a.padding_idx, row_out,
                      &column);
    SumColumnsAvx2<2>(weight, dim, indices, begin, end, last_index, a.padding_idx, row_out,
                      &column);
    SumColumnsAvx2<1>(weight, dim, indices, begin, end, last_index, a.padding_idx, row_out,
                      &column);
    SumBagFrom(a, weight, indices, begin, end, column, row_out);  // the rest; the mean
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
  const int64_t bags =
      a.offsets.dim() == 1 ? a.offsets.numel() - (a.include_last_offset ? 1 : 0) : 0;
  bool valid = Supported(a) && bags >= 0;
  if (valid) {
    valid =
        a.indices.scalar_type() == at::kLong ? Valid<int64_t>(a, bags) : Valid<int32_t>(a, bags);
  }
  if (!valid) {
    auto [output, offset2bag, bag_size, max_indices] = Functional(io, a);
    io.Output(0) = std::move(output);
    io.Output(1) = std::move(offset2bag);
    io.Output(2) = std::move(bag_size);
    io.Output(3) = std::move(max_indices);
    return;
  }
  WriteOutput(
      io, 0, a.weight.scalar_type(), [&] { return std::get<0>(Functional(io, a)); },
      [&](at::Tensor& out) {
        out.resize_({bags, a.weight.size(1)});
        if (ops::CpuRunsAvx2() && a.weight.scalar_type() == at::kFloat) {
          if (a.indices.scalar_type() == at::kLong) {
            PoolFloatAvx2<int64_t>(a, bags, out);
          } else {
            PoolFloatAvx2<int32_t>(a, bags, out);
          }
          return;
        }
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
KernelOffer ForPooledOutputOnly(const torch::jit::Node* node) {
  for (size_t i = 1; i < node->outputs().size(); ++i) {
    if (node->output(i)->hasUses()) return Decline();
  }
  return EmbeddingBag;
}

}  // namespace

void RegisterOutEmbeddingBagKernels(KernelRegistry& registry) {
  for (const char* overload : {"", "padding_idx"}) {
    registry.Add({KernelOp::Overload("aten::embedding_bag", overload), NodeKind::kOutVariant,
                  ForPooledOutputOnly});
  }
}

}  // namespace static_runtime
