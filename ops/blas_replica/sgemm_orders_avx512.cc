#include "ops/blas_replica/sgemm_orders_avx512.h"

#include <immintrin.h>

#include <algorithm>

namespace static_runtime {
namespace ops {
namespace blas_replica {
namespace {

constexpr int64_t kLanes = 16;

__mmask16 FirstLanes(int64_t count) {
  return count >= kLanes ? static_cast<__mmask16>(0xffff)
                         : static_cast<__mmask16>((1u << count) - 1);
}

// R rows by P panels of y (from row `x`'s and panel `first_panel`'s), every
// block of k in the Chain order.
template <int R, int P>
void ChainTile(const float* panels, const float* bias, const float* x, int64_t x_row_stride,
               int64_t n, int64_t k, const std::vector<int64_t>& block_ends, int64_t first_panel,
               float* y) {
  __mmask16 mask[P];
  __m512 sum[R][P];
#pragma GCC unroll 8
  for (int q = 0; q < P; ++q) {
    const int64_t column = (first_panel + q) * kLanes;
    mask[q] = FirstLanes(n - column);
    const __m512 init =
        bias != nullptr ? _mm512_maskz_loadu_ps(mask[q], bias + column) : _mm512_setzero_ps();
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) sum[r][q] = init;
  }
  const float* panel = panels + first_panel * kLanes * k;
  int64_t begin = 0;
  for (const int64_t end : block_ends) {
    __m512 acc[R][P];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
#pragma GCC unroll 8
      for (int q = 0; q < P; ++q) acc[r][q] = _mm512_setzero_ps();
    }
    for (int64_t p = begin; p < end; ++p) {
      __m512 w[P];
#pragma GCC unroll 8
      for (int q = 0; q < P; ++q) {
        w[q] = _mm512_loadu_ps(panel + (q * k + p) * kLanes);
        // Kept in a register for the rows: GCC 12 otherwise folds the load
        // into each row's multiply-add for three rows (18 loads a step
        // instead of 6: a 3 x 512 x 128 product took 1.6x a 4-row one).
        if constexpr (R > 1) asm("" : "+v"(w[q]));
      }
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) {
        const __m512 xv = _mm512_set1_ps(x[r * x_row_stride + p]);
#pragma GCC unroll 8
        for (int q = 0; q < P; ++q) acc[r][q] = _mm512_fmadd_ps(w[q], xv, acc[r][q]);
      }
    }
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
#pragma GCC unroll 8
      for (int q = 0; q < P; ++q) sum[r][q] = _mm512_add_ps(sum[r][q], acc[r][q]);
    }
    begin = end;
  }
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 8
    for (int q = 0; q < P; ++q) {
      _mm512_mask_storeu_ps(y + r * n + (first_panel + q) * kLanes, mask[q], sum[r][q]);
    }
  }
}

// The last `count` (< P) panels of R rows, `first` the first of them.
template <int R, int P>
void ChainRest(const float* panels, const float* bias, const float* x, int64_t x_row_stride,
               int64_t n, int64_t k, const std::vector<int64_t>& block_ends, int64_t first,
               int64_t count, float* y) {
  if constexpr (P > 1) {
    if (count == P - 1) {
      ChainTile<R, P - 1>(panels, bias, x, x_row_stride, n, k, block_ends, first, y);
    } else {
      ChainRest<R, P - 1>(panels, bias, x, x_row_stride, n, k, block_ends, first, count, y);
    }
  }
}

// R rows of y: P panels at a time (enough independent chains to hide the
// fused multiply-add's latency), then the rest in one tile.
template <int R>
void ChainRows(const float* panels, const float* bias, const float* x, int64_t x_row_stride,
               int64_t n, int64_t k, const std::vector<int64_t>& block_ends, float* y) {
  constexpr int P = R == 1 ? 8 : 6;
  const int64_t panel_count = (n + kLanes - 1) / kLanes;
  int64_t p = 0;
  for (; p + P <= panel_count; p += P) {
    ChainTile<R, P>(panels, bias, x, x_row_stride, n, k, block_ends, p, y);
  }
  ChainRest<R, P>(panels, bias, x, x_row_stride, n, k, block_ends, p, panel_count - p, y);
}

// The sixteen lane sums of output row `w` by input row `x` (k values each).
template <int J, int R>
void LaneSums(const float* w, int64_t w_row_stride, const float* x, int64_t x_row_stride, int64_t k,
              __m512 (&acc)[J][R]) {
#pragma GCC unroll 8
  for (int j = 0; j < J; ++j) {
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) acc[j][r] = _mm512_setzero_ps();
  }
  const int64_t whole = k / kLanes * kLanes;
  for (int64_t p = 0; p < whole; p += kLanes) {
    __m512 xv[R];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) xv[r] = _mm512_loadu_ps(x + r * x_row_stride + p);
#pragma GCC unroll 8
    for (int j = 0; j < J; ++j) {
      const __m512 wv = _mm512_loadu_ps(w + j * w_row_stride + p);
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) acc[j][r] = _mm512_fmadd_ps(wv, xv[r], acc[j][r]);
    }
  }
  if (whole < k) {
    const __mmask16 mask = FirstLanes(k - whole);
    __m512 xv[R];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) xv[r] = _mm512_maskz_loadu_ps(mask, x + r * x_row_stride + whole);
#pragma GCC unroll 8
    for (int j = 0; j < J; ++j) {
      const __m512 wv = _mm512_maskz_loadu_ps(mask, w + j * w_row_stride + whole);
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) acc[j][r] = _mm512_fmadd_ps(wv, xv[r], acc[j][r]);
    }
  }
}

// (0+1)+(2+3) in each group of four lanes, then (G0+G1)+(G2+G3).
float GroupTree(__m512 v) {
  const __m512 pairs = _mm512_add_ps(v, _mm512_permute_ps(v, _MM_SHUFFLE(2, 3, 0, 1)));
  const __m512 groups = _mm512_add_ps(pairs, _mm512_permute_ps(pairs, _MM_SHUFFLE(1, 0, 3, 2)));
  const __m512 halves =
      _mm512_add_ps(groups, _mm512_shuffle_f32x4(groups, groups, _MM_SHUFFLE(2, 3, 0, 1)));
  const __m512 total =
      _mm512_add_ps(halves, _mm512_shuffle_f32x4(halves, halves, _MM_SHUFFLE(1, 0, 3, 2)));
  return _mm512_cvtss_f32(total);
}

// Lanes l and l+8, then l and l+4, then l and l+2, then the last two.
float HalvingTree(__m512 v) {
  alignas(64) float lane[kLanes];
  _mm512_store_ps(lane, v);
  for (int width = 8; width >= 2; width /= 2) {
    for (int l = 0; l < width; ++l) lane[l] = lane[l] + lane[l + width];
  }
  return lane[0] + lane[1];
}

// GroupTree of four accumulators at once: lane i of the result is
// GroupTree(a_i). Within each group of four lanes, a transpose (unpack, then
// shuffle) lines up lane p of a_0..a_3 in vector t_p, so (t_0 + t_1) +
// (t_2 + t_3) is each accumulator's group sum; then the groups are paired
// across the vector.
__m128 GroupTree4(__m512 a0, __m512 a1, __m512 a2, __m512 a3) {
  const __m512 low01 = _mm512_unpacklo_ps(a0, a1), high01 = _mm512_unpackhi_ps(a0, a1);
  const __m512 low23 = _mm512_unpacklo_ps(a2, a3), high23 = _mm512_unpackhi_ps(a2, a3);
  const __m512 t0 = _mm512_shuffle_ps(low01, low23, _MM_SHUFFLE(1, 0, 1, 0));
  const __m512 t1 = _mm512_shuffle_ps(low01, low23, _MM_SHUFFLE(3, 2, 3, 2));
  const __m512 t2 = _mm512_shuffle_ps(high01, high23, _MM_SHUFFLE(1, 0, 1, 0));
  const __m512 t3 = _mm512_shuffle_ps(high01, high23, _MM_SHUFFLE(3, 2, 3, 2));
  const __m512 groups = _mm512_add_ps(_mm512_add_ps(t0, t1), _mm512_add_ps(t2, t3));
  const __m512 halves =
      _mm512_add_ps(groups, _mm512_shuffle_f32x4(groups, groups, _MM_SHUFFLE(2, 3, 0, 1)));
  const __m512 total =
      _mm512_add_ps(halves, _mm512_shuffle_f32x4(halves, halves, _MM_SHUFFLE(1, 0, 3, 2)));
  return _mm512_castps512_ps128(total);
}

// J outputs (from `first_output`, J a multiple of 4, all below n rounded
// down to 4: the GroupTree's) by R rows (from `first_row`) of y.
template <int J, int R>
void GroupedLaneTreeTile(const float* weight, const float* bias, const float* x,
                         int64_t x_row_stride, int64_t n, int64_t k, int64_t first_output,
                         int64_t first_row, float* y) {
  __m512 acc[J][R];
  LaneSums<J, R>(weight + first_output * k, k, x + first_row * x_row_stride, x_row_stride, k, acc);
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 2
    for (int j = 0; j < J; j += 4) {
      __m128 total = GroupTree4(acc[j][r], acc[j + 1][r], acc[j + 2][r], acc[j + 3][r]);
      const int64_t output = first_output + j;
      if (bias != nullptr) total = _mm_add_ps(_mm_loadu_ps(bias + output), total);
      _mm_storeu_ps(y + (first_row + r) * n + output, total);
    }
  }
}

// Output `output` (at or past n rounded down to 4) of row `row` of y.
void LaneTreeOne(const float* weight, const float* bias, const float* x, int64_t x_row_stride,
                 int64_t rows, int64_t k, int64_t output, int64_t row, float* y, int64_t n) {
  __m512 acc[1][1];
  LaneSums<1, 1>(weight + output * k, k, x + row * x_row_stride, x_row_stride, k, acc);
  const float total = row < rows / 4 * 4 ? GroupTree(acc[0][0]) : HalvingTree(acc[0][0]);
  y[row * n + output] = bias != nullptr ? bias[output] + total : total;
}

}  // namespace

void ChainProductAvx512(const std::vector<int64_t>& block_ends, const float* panels,
                        const float* bias, const float* x, int64_t x_row_stride, int64_t rows,
                        int64_t n, int64_t k, float* y) {
  int64_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    ChainRows<4>(panels, bias, x + r * x_row_stride, x_row_stride, n, k, block_ends, y + r * n);
  }
  const float* x_rest = x + r * x_row_stride;
  float* y_rest = y + r * n;
  switch (rows - r) {
    case 3:
      ChainRows<3>(panels, bias, x_rest, x_row_stride, n, k, block_ends, y_rest);
      break;
    case 2:
      ChainRows<2>(panels, bias, x_rest, x_row_stride, n, k, block_ends, y_rest);
      break;
    case 1:
      ChainRows<1>(panels, bias, x_rest, x_row_stride, n, k, block_ends, y_rest);
      break;
    default:
      break;
  }
}

void LaneTreeProductAvx512(const float* weight, const float* bias, const float* x,
                           int64_t x_row_stride, int64_t rows, int64_t n, int64_t k, float* y) {
  // Sixteen chains at a time (four outputs by four rows, eight outputs by
  // two rows, or eight outputs of a last row), then eight (four outputs by
  // two rows or of a last row); outputs past the last group of four one at
  // a time.
  const int64_t grouped_outputs = n / 4 * 4;
  int64_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    for (int64_t j = 0; j < grouped_outputs; j += 4) {
      GroupedLaneTreeTile<4, 4>(weight, bias, x, x_row_stride, n, k, j, r, y);
    }
  }
  for (; r + 2 <= rows; r += 2) {
    int64_t j = 0;
    for (; j + 8 <= grouped_outputs; j += 8) {
      GroupedLaneTreeTile<8, 2>(weight, bias, x, x_row_stride, n, k, j, r, y);
    }
    for (; j < grouped_outputs; j += 4) {
      GroupedLaneTreeTile<4, 2>(weight, bias, x, x_row_stride, n, k, j, r, y);
    }
  }
  if (r < rows) {
    int64_t j = 0;
    for (; j + 8 <= grouped_outputs; j += 8) {
      GroupedLaneTreeTile<8, 1>(weight, bias, x, x_row_stride, n, k, j, r, y);
    }
    for (; j < grouped_outputs; j += 4) {
      GroupedLaneTreeTile<4, 1>(weight, bias, x, x_row_stride, n, k, j, r, y);
    }
  }
  for (int64_t j = grouped_outputs; j < n; ++j) {
    for (int64_t row = 0; row < rows; ++row) {
      LaneTreeOne(weight, bias, x, x_row_stride, rows, k, j, row, y, n);
    }
  }
}

}  // namespace blas_replica
}  // namespace ops
}  // namespace static_runtime
