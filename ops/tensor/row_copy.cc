#include "ops/tensor/row_copy.h"

#include <cstring>

#include "c10/util/SmallVector.h"

namespace static_runtime {

bool CopyRows(const at::Tensor& source, at::Tensor& target) {
  const int64_t rank = source.dim();
  if (rank == 0 || source.numel() == 0 || source.stride(rank - 1) != 1) return false;
  // The row: the innermost dimension and those outside it that continue it.
  int64_t row = source.size(rank - 1);
  int64_t outer_rank = rank - 1;
  while (outer_rank > 0 && source.stride(outer_rank - 1) == row) {
    row *= source.size(outer_rank - 1);
    --outer_rank;
  }
  const int64_t element = source.element_size();
  const int64_t row_bytes = row * element;
  if (row_bytes < kMinRowBytes) return false;
  const auto* from = static_cast<const char*>(source.data_ptr());
  auto* to = static_cast<char*>(target.data_ptr());
  const int64_t rows = source.numel() / row;
  // The source offset (in elements) of each row, the outer index counting
  // up as an odometer, the last outer dimension fastest.
  c10::SmallVector<int64_t, 6> index(outer_rank, 0);
  int64_t offset = 0;
  for (int64_t r = 0; r < rows; ++r) {
    std::memcpy(to + r * row_bytes, from + offset * element, row_bytes);
    for (int64_t d = outer_rank - 1; d >= 0; --d) {
      offset += source.stride(d);
      if (++index[d] < source.size(d)) break;
      offset -= index[d] * source.stride(d);
      index[d] = 0;
    }
  }
  return true;
}

}  // namespace static_runtime
