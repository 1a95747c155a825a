#include "ops/blas_replica/chain_avx2.h"

#include <immintrin.h>

#include <algorithm>

namespace static_runtime {
namespace ops {
namespace blas_replica {
namespace {

constexpr int64_t kPanelLanes = 16;  // PackPanels' panels
constexpr int64_t kLanes = 8;

// A mask of the first `count` lanes (all eight when count >= 8).
__m256i FirstLanes(int64_t count) {
  const int first = static_cast<int>(std::min(count, kLanes));
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(first), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// Adds weights (of V vectors of results, from `weights`: the first one's at
// k = p) times row values at k = p to R x V accumulators.
template <int R, int V>
void MultiplyAdd(const float* weights, int64_t k, const float* x, int64_t x_row_stride, int64_t p,
                 __m256 (&acc)[R][V]) {
  __m256 w[V];
#pragma GCC unroll 4
  for (int v = 0; v < V; ++v) {
    w[v] =
        _mm256_loadu_ps(weights + (v / 2) * k * kPanelLanes + (v % 2) * kLanes + p * kPanelLanes);
  }
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) {
    const __m256 xv = _mm256_broadcast_ss(x + r * x_row_stride + p);
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) acc[r][v] = _mm256_fmadd_ps(w[v], xv, acc[r][v]);
  }
}

// R rows by V vectors of eight results (from row `x`'s, and from vector
// `first_vector`, an even one when V > 1), every block of k in the Chain
// order, with `Chains` chains (1, or 2: even and odd k of the block).
template <int R, int V, int Chains>
void ChainTile(const float* panels, const float* bias, const float* x, int64_t x_row_stride,
               int64_t n, int64_t k, const std::vector<int64_t>& block_ends, int64_t first_vector,
               float* y) {
  __m256i mask[V];
  __m256 sum[R][V];
#pragma GCC unroll 4
  for (int v = 0; v < V; ++v) {
    const int64_t column = (first_vector + v) * kLanes;
    mask[v] = FirstLanes(n - column);
    const __m256 init =
        bias != nullptr ? _mm256_maskload_ps(bias + column, mask[v]) : _mm256_setzero_ps();
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) sum[r][v] = init;
  }
  const float* weights =
      panels + (first_vector / 2) * k * kPanelLanes + (first_vector % 2) * kLanes;
  int64_t begin = 0;
  for (const int64_t end : block_ends) {
    __m256 acc[Chains][R][V];
#pragma GCC unroll 2
    for (int c = 0; c < Chains; ++c) {
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) acc[c][r][v] = _mm256_setzero_ps();
      }
    }
    int64_t p = begin;
    for (; p + Chains <= end; p += Chains) {
#pragma GCC unroll 2
      for (int c = 0; c < Chains; ++c) {
        MultiplyAdd<R, V>(weights, k, x, x_row_stride, p + c, acc[c]);
      }
    }
    // An odd block's last k, in the even chain.
    if (p < end) MultiplyAdd<R, V>(weights, k, x, x_row_stride, p, acc[0]);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) {
        const __m256 block =
            Chains == 2 ? _mm256_add_ps(acc[0][r][v], acc[Chains - 1][r][v]) : acc[0][r][v];
        sum[r][v] = _mm256_add_ps(sum[r][v], block);
      }
    }
    begin = end;
  }
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      _mm256_maskstore_ps(y + r * n + (first_vector + v) * kLanes, mask[v], sum[r][v]);
    }
  }
}

// R rows of y: V vectors of results at a time (enough independent chains to
// hide the fused multiply-add's latency), then one at a time.
template <int R, int Chains>
void ChainRows(const float* panels, const float* bias, const float* x, int64_t x_row_stride,
               int64_t n, int64_t k, const std::vector<int64_t>& block_ends, float* y) {
  constexpr int V = Chains == 2 ? 1 : R == 1 ? 4 : R == 2 ? 4 : 2;
  const int64_t vectors = (n + kLanes - 1) / kLanes;
  int64_t v = 0;
  for (; v + V <= vectors; v += V) {
    ChainTile<R, V, Chains>(panels, bias, x, x_row_stride, n, k, block_ends, v, y);
  }
  for (; v < vectors; ++v) {
    ChainTile<R, 1, Chains>(panels, bias, x, x_row_stride, n, k, block_ends, v, y);
  }
}

}  // namespace

void ChainProductAvx2(const std::vector<int64_t>& block_ends, int64_t paired_rows,
                      const float* panels, const float* bias, const float* x, int64_t x_row_stride,
                      int64_t rows, int64_t n, int64_t k, float* y) {
  int64_t r = 0;
  for (; r + 4 <= paired_rows; r += 4) {
    ChainRows<4, 2>(panels, bias, x + r * x_row_stride, x_row_stride, n, k, block_ends, y + r * n);
  }
  for (; r + 4 <= rows; r += 4) {
    ChainRows<4, 1>(panels, bias, x + r * x_row_stride, x_row_stride, n, k, block_ends, y + r * n);
  }
  const float* x_rest = x + r * x_row_stride;
  float* y_rest = y + r * n;
  switch (rows - r) {
    case 3:
      ChainRows<3, 1>(panels, bias, x_rest, x_row_stride, n, k, block_ends, y_rest);
      break;
    case 2:
      ChainRows<2, 1>(panels, bias, x_rest, x_row_stride, n, k, block_ends, y_rest);
      break;
    case 1:
      ChainRows<1, 1>(panels, bias, x_rest, x_row_stride, n, k, block_ends, y_rest);
      break;
    default:
      break;
  }
}

}  // namespace blas_replica
}  // namespace ops
}  // namespace static_runtime
