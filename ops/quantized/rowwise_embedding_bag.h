// Pooling of row-wise quantized embedding tables (what
// quantized::embedding_bag_byte_rowwise_offsets, _4bit_rowwise_offsets and
// the torch.ao.nn.quantized.EmbeddingBag modules compute), bit for bit as
// LibTorch 1.13 built without FBGEMM (Debian's) computes it, and an order of
// magnitude faster (vectorized rows instead of a libm call per value).
//
// A table row holds its `dim` values, then its scale and bias: 8-bit rows one
// byte a value and float32 scale and bias; 4-bit rows two values a byte (the
// low nibble first) and float16 scale and bias. A bag's sum starts at zero;
// for each of its indices i in order, with the row's scale and bias times the
// index's per-sample weight w (1 without weights; float products),
//   out[j] = float(double(w * scale) * q[j] + double(out[j] + w * bias))
// which is ATen's fma of doubles: the product of a float and a small integer
// is exact in double, so the sum is rounded to double and then to float (a
// float fma would round once, and differs where the double lands on a tie).
#ifndef STATIC_RUNTIME_OPS_QUANTIZED_ROWWISE_EMBEDDING_BAG_H_
#define STATIC_RUNTIME_OPS_QUANTIZED_ROWWISE_EMBEDDING_BAG_H_

#include <cstdint>

namespace static_runtime {
namespace quantized {

struct RowwiseTable {
  const uint8_t* data;  // rows x row_bytes, contiguous
  int64_t rows;
  int64_t row_bytes;
  int bits;  // 8 or 4

  // Values per row: row_bytes - 8 (8-bit), (row_bytes - 4) * 2 (4-bit).
  int64_t dim() const { return bits == 8 ? row_bytes - 8 : (row_bytes - 4) * 2; }
};

// Writes `bags` rows of table.dim() floats to `out`: bag b pools the rows
// indices[starts[b]] .. indices[end - 1], where end is starts[b + 1] for all
// bags but the last, and `last_end` for the last (starts non-decreasing,
// up to last_end). Every index must be a row of the table;
// `per_sample_weights` (one per index) may be null.
template <typename Index, typename Offset>
void PoolBags(const RowwiseTable& table, const Index* indices, const Offset* starts,
              int64_t last_end, const float* per_sample_weights, int64_t bags, float* out);

}  // namespace quantized
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_QUANTIZED_ROWWISE_EMBEDDING_BAG_H_
