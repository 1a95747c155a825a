// Compiled with -mavx2 -mfma. M, the outputs of a tile along each side, is
// 2 or 4; the transforms are Lavin and Gray's, on the points 0, 1, -1 (and
// 2, -2). Tiles are done in chunks of kChunk: the chunk's (M + 2)^2
// transformed input matrices [kChunk, C] (v), then for each position the
// product by its [C, K] weight matrix into [kChunk, K] (m), 6 tiles by 16
// output channels at a time in registers, then the chunk's outputs. The
// chunk's v and m stay in the caches between the steps.
#include "ops/conv/winograd_3x3_avx2.h"

#include <immintrin.h>

#include <algorithm>
#include <vector>

namespace static_runtime {
namespace ops {
namespace {

constexpr int64_t kRows = 6;            // tiles per register block
constexpr int64_t kChunk = 16 * kRows;  // tiles per chunk

// m[r][0..16) = sum over c of v[r][c] * panel[c][0..16), for r < rows
// (rows <= kRows; the block reads kRows rows of v, stores `rows`). The 12
// accumulators are named so that they stay in registers.
void MultiplyBlock(const float* v, int64_t ldv, const float* panel, int64_t channels, float* m,
                   int64_t ldm, int64_t rows) {
  static_assert(kRows == 6, "six named rows below");
  __m256 a0 = _mm256_setzero_ps(), b0 = a0, a1 = a0, b1 = a0, a2 = a0, b2 = a0, a3 = a0, b3 = a0,
         a4 = a0, b4 = a0, a5 = a0, b5 = a0;
  const float *v0 = v, *v1 = v + ldv, *v2 = v + 2 * ldv, *v3 = v + 3 * ldv, *v4 = v + 4 * ldv,
              *v5 = v + 5 * ldv;
  for (int64_t c = 0; c < channels; ++c) {
    const __m256 w0 = _mm256_loadu_ps(panel + c * 16), w1 = _mm256_loadu_ps(panel + c * 16 + 8);
    __m256 x = _mm256_broadcast_ss(v0 + c);
    a0 = _mm256_fmadd_ps(x, w0, a0);
    b0 = _mm256_fmadd_ps(x, w1, b0);
    x = _mm256_broadcast_ss(v1 + c);
    a1 = _mm256_fmadd_ps(x, w0, a1);
    b1 = _mm256_fmadd_ps(x, w1, b1);
    x = _mm256_broadcast_ss(v2 + c);
    a2 = _mm256_fmadd_ps(x, w0, a2);
    b2 = _mm256_fmadd_ps(x, w1, b2);
    x = _mm256_broadcast_ss(v3 + c);
    a3 = _mm256_fmadd_ps(x, w0, a3);
    b3 = _mm256_fmadd_ps(x, w1, b3);
    x = _mm256_broadcast_ss(v4 + c);
    a4 = _mm256_fmadd_ps(x, w0, a4);
    b4 = _mm256_fmadd_ps(x, w1, b4);
    x = _mm256_broadcast_ss(v5 + c);
    a5 = _mm256_fmadd_ps(x, w0, a5);
    b5 = _mm256_fmadd_ps(x, w1, b5);
  }
  const __m256 results[kRows][2] = {{a0, b0}, {a1, b1}, {a2, b2}, {a3, b3}, {a4, b4}, {a5, b5}};
  for (int64_t r = 0; r < rows; ++r) {
    _mm256_storeu_ps(m + r * ldm, results[r][0]);
    _mm256_storeu_ps(m + r * ldm + 8, results[r][1]);
  }
}

// The first `lanes` (1 to 8) lanes on, for masked loads and stores of a
// last, partial group of channels.
__m256i LaneMask(int64_t lanes) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(lanes)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// 8 values, or the first `lanes` (the others 0) where lanes < 8.
__m256 Load(const float* p, int64_t lanes, __m256i mask) {
  return lanes == 8 ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, mask);
}

void Store(float* p, __m256 values, int64_t lanes, __m256i mask) {
  if (lanes == 8) {
    _mm256_storeu_ps(p, values);
  } else {
    _mm256_maskstore_ps(p, mask, values);
  }
}

// The 1D transforms of F(M, 3) on vectors: InputRows is B^T (N = M + 2
// values in, N out), OutputRows A^T (N in, M out). Each 2D transform applies
// them to the columns, then to the rows.
template <int M>
struct Transforms;

template <>
struct Transforms<2> {
  static constexpr int N = 4;
  static void InputRows(const __m256 (&d)[N], __m256 (&r)[N]) {
    r[0] = _mm256_sub_ps(d[0], d[2]);
    r[1] = _mm256_add_ps(d[1], d[2]);
    r[2] = _mm256_sub_ps(d[2], d[1]);
    r[3] = _mm256_sub_ps(d[1], d[3]);
  }
  static void OutputRows(const __m256 (&m)[N], __m256 (&o)[2]) {
    o[0] = _mm256_add_ps(_mm256_add_ps(m[0], m[1]), m[2]);
    o[1] = _mm256_sub_ps(_mm256_sub_ps(m[1], m[2]), m[3]);
  }
};

template <>
struct Transforms<4> {
  static constexpr int N = 6;
  static void InputRows(const __m256 (&d)[N], __m256 (&r)[N]) {
    const __m256 two = _mm256_set1_ps(2), four = _mm256_set1_ps(4), five = _mm256_set1_ps(5);
    r[0] = _mm256_add_ps(_mm256_fnmadd_ps(five, d[2], _mm256_mul_ps(four, d[0])), d[4]);
    r[1] = _mm256_add_ps(_mm256_fnmadd_ps(four, _mm256_add_ps(d[1], d[2]), d[3]), d[4]);
    r[2] = _mm256_sub_ps(_mm256_fmadd_ps(four, _mm256_sub_ps(d[1], d[2]), d[4]), d[3]);
    r[3] = _mm256_sub_ps(_mm256_fmadd_ps(two, _mm256_sub_ps(d[3], d[1]), d[4]), d[2]);
    r[4] = _mm256_sub_ps(_mm256_fmadd_ps(two, _mm256_sub_ps(d[1], d[3]), d[4]), d[2]);
    r[5] = _mm256_add_ps(_mm256_fnmadd_ps(five, d[3], _mm256_mul_ps(four, d[1])), d[5]);
  }
  static void OutputRows(const __m256 (&m)[N], __m256 (&o)[4]) {
    const __m256 two = _mm256_set1_ps(2), four = _mm256_set1_ps(4), eight = _mm256_set1_ps(8);
    const __m256 s12 = _mm256_add_ps(m[1], m[2]), d12 = _mm256_sub_ps(m[1], m[2]);
    const __m256 s34 = _mm256_add_ps(m[3], m[4]), d34 = _mm256_sub_ps(m[3], m[4]);
    o[0] = _mm256_add_ps(_mm256_add_ps(m[0], s12), s34);
    o[1] = _mm256_fmadd_ps(two, d34, d12);
    o[2] = _mm256_fmadd_ps(four, s34, s12);
    o[3] = _mm256_add_ps(_mm256_fmadd_ps(eight, d34, d12), m[5]);
  }
};

struct Tile {
  int64_t image, row, col;  // the tile's first output
};

template <int M>
Tile TileAt(int64_t tile_cols, int64_t tiles_per_image, int64_t t) {
  const int64_t within = t % tiles_per_image;
  return {t / tiles_per_image, M * (within / tile_cols), M * (within % tile_cols)};
}

// V[p][i][c] for the chunk's tiles: B^T d B of each N x N input tile d
// (zero outside the image), 8 channels at a time (the last group masked).
template <int M>
void TransformInputs(const Winograd3x3Shape& s, int64_t channels, const float* x, const Tile* tiles,
                     int64_t count, float* v) {
  constexpr int N = Transforms<M>::N;
  const int64_t ld = kChunk * channels;  // between positions
  for (int64_t i = 0; i < count; ++i) {
    const Tile& tile = tiles[i];
    const float* image = x + tile.image * s.height * s.width * channels;
    const int64_t top = tile.row - s.pad_top, left = tile.col - s.pad_left;
    bool inside[N][N];
    for (int a = 0; a < N; ++a) {
      for (int b = 0; b < N; ++b) {
        inside[a][b] = top + a >= 0 && top + a < s.height && left + b >= 0 && left + b < s.width;
      }
    }
    float* out = v + i * channels;
    for (int64_t c = 0; c < channels; c += 8) {
      const int64_t lanes = std::min<int64_t>(8, channels - c);
      const __m256i mask = LaneMask(lanes);
      __m256 columns[N][N];  // [column][row] of d
      for (int a = 0; a < N; ++a) {
        for (int b = 0; b < N; ++b) {
          columns[b][a] =
              inside[a][b]
                  ? Load(image + ((top + a) * s.width + left + b) * channels + c, lanes, mask)
                  : _mm256_setzero_ps();
        }
      }
      __m256 e[N][N];  // [row][column] of B^T d
      for (int b = 0; b < N; ++b) {
        __m256 transformed[N];
        Transforms<M>::InputRows(columns[b], transformed);
        for (int a = 0; a < N; ++a) e[a][b] = transformed[a];
      }
      for (int a = 0; a < N; ++a) {
        __m256 transformed[N];
        Transforms<M>::InputRows(e[a], transformed);
        for (int b = 0; b < N; ++b) Store(out + (a * N + b) * ld + c, transformed[b], lanes, mask);
      }
    }
  }
}

// y at the chunk's tiles: A^T m A + bias, 8 output channels at a time (the
// last group masked), the tile's outputs past the image's edge left out.
template <int M>
void TransformOutputs(const Winograd3x3Shape& s, const Winograd3x3::Weights& w, const float* m,
                      const Tile* tiles, int64_t count, float* y) {
  constexpr int N = Transforms<M>::N;
  const int64_t k_channels = w.out_channels, ld = kChunk * w.padded_out;
  for (int64_t i = 0; i < count; ++i) {
    const Tile& tile = tiles[i];
    const int64_t rows = std::min<int64_t>(M, s.out_height - tile.row);
    const int64_t cols = std::min<int64_t>(M, s.out_width - tile.col);
    float* out = y + ((tile.image * s.out_height + tile.row) * s.out_width + tile.col) * k_channels;
    const float* in = m + i * w.padded_out;
    for (int64_t k = 0; k < k_channels; k += 8) {
      // (m and the bias are padded to whole panels: only the stores mask.)
      const int64_t lanes = std::min<int64_t>(8, k_channels - k);
      const __m256i mask = LaneMask(lanes);
      __m256 q[M][N];  // A^T m: [row][column]
      for (int b = 0; b < N; ++b) {
        __m256 column[N], transformed[M];
        for (int a = 0; a < N; ++a) column[a] = _mm256_loadu_ps(in + (a * N + b) * ld + k);
        Transforms<M>::OutputRows(column, transformed);
        for (int a = 0; a < M; ++a) q[a][b] = transformed[a];
      }
      const __m256 bias = _mm256_loadu_ps(w.bias.data() + k);
      for (int a = 0; a < rows; ++a) {
        __m256 values[M];
        Transforms<M>::OutputRows(q[a], values);
        float* row = out + a * s.out_width * k_channels + k;
        for (int b = 0; b < cols; ++b) {
          Store(row + b * k_channels, _mm256_add_ps(values[b], bias), lanes, mask);
        }
      }
    }
  }
}

template <int M>
void Run(const Winograd3x3::Weights& w, const Winograd3x3Shape& s, const float* x, float* y) {
  constexpr int64_t kPositions = Transforms<M>::N * Transforms<M>::N;
  const int64_t tile_rows = (s.out_height + M - 1) / M, tile_cols = (s.out_width + M - 1) / M;
  const int64_t tiles_per_image = tile_rows * tile_cols, tiles = s.batch * tiles_per_image;
  const int64_t panels = w.padded_out / 16;
  // Per thread, kept: a steady-state call allocates nothing.
  thread_local std::vector<float> v, m;
  v.resize(kPositions * kChunk * w.in_channels);
  m.resize(kPositions * kChunk * w.padded_out);
  Tile chunk_tiles[kChunk];
  for (int64_t first = 0; first < tiles; first += kChunk) {
    const int64_t count = std::min(kChunk, tiles - first);
    for (int64_t i = 0; i < count; ++i) {
      chunk_tiles[i] = TileAt<M>(tile_cols, tiles_per_image, first + i);
    }
    TransformInputs<M>(s, w.in_channels, x, chunk_tiles, count, v.data());
    for (int64_t position = 0; position < kPositions; ++position) {
      const float* vp = v.data() + position * kChunk * w.in_channels;
      float* mp = m.data() + position * kChunk * w.padded_out;
      for (int64_t panel = 0; panel < panels; ++panel) {
        const float* weights = w.panels.data() + (position * panels + panel) * w.in_channels * 16;
        for (int64_t r = 0; r < count; r += kRows) {
          MultiplyBlock(vp + r * w.in_channels, w.in_channels, weights, w.in_channels,
                        mp + r * w.padded_out + panel * 16, w.padded_out,
                        std::min(kRows, count - r));
        }
      }
    }
    TransformOutputs<M>(s, w, m.data(), chunk_tiles, count, y);
  }
}

}  // namespace

void RunWinograd3x3Avx2(const Winograd3x3::Weights& w, const Winograd3x3Shape& s, const float* x,
                        float* y) {
  if (w.tile == 4) {
    Run<4>(w, s, x, y);
  } else {
    Run<2>(w, s, x, y);
  }
}

}  // namespace ops
}  // namespace static_runtime
