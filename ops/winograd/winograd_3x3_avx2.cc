// Compiled with -mavx2 -mfma. Tiles are done in chunks of kChunk: the
// chunk's 16 transformed input matrices [kChunk, C] (V), then for each
// position the product by its [C, K] weight matrix into [kChunk, K] (M), 6
// tiles by 16 output channels at a time in registers, then the chunk's
// outputs. The chunk's V and M stay in the caches between the steps.
#include "ops/winograd/winograd_3x3_avx2.h"

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

struct Tile {
  int64_t image, row, col;  // the tile's first output
};

Tile TileAt(int64_t tile_cols, int64_t tiles_per_image, int64_t t) {
  const int64_t within = t % tiles_per_image;
  return {t / tiles_per_image, 2 * (within / tile_cols), 2 * (within % tile_cols)};
}

// V[p][i][c] for the chunk's tiles: B^T d B of each 4 x 4 input tile d
// (zero outside the image), 8 channels at a time (the last group masked).
void TransformInputs(const Winograd3x3Shape& s, int64_t channels, const float* x, const Tile* tiles,
                     int64_t count, float* v) {
  const int64_t ld = kChunk * channels;  // between positions
  for (int64_t i = 0; i < count; ++i) {
    const Tile& tile = tiles[i];
    const float* image = x + tile.image * s.height * s.width * channels;
    const int64_t top = tile.row - s.pad_top, left = tile.col - s.pad_left;
    bool inside[4][4];
    for (int a = 0; a < 4; ++a) {
      for (int b = 0; b < 4; ++b) {
        inside[a][b] = top + a >= 0 && top + a < s.height && left + b >= 0 && left + b < s.width;
      }
    }
    float* out = v + i * channels;
    for (int64_t c = 0; c < channels; c += 8) {
      const int64_t lanes = std::min<int64_t>(8, channels - c);
      const __m256i mask = LaneMask(lanes);
      __m256 d[4][4];
      for (int a = 0; a < 4; ++a) {
        for (int b = 0; b < 4; ++b) {
          d[a][b] = inside[a][b]
                        ? Load(image + ((top + a) * s.width + left + b) * channels + c, lanes, mask)
                        : _mm256_setzero_ps();
        }
      }
      // B^T d: rows d0 - d2, d1 + d2, d2 - d1, d1 - d3; then the same on columns.
      __m256 e[4][4];
      for (int b = 0; b < 4; ++b) {
        e[0][b] = _mm256_sub_ps(d[0][b], d[2][b]);
        e[1][b] = _mm256_add_ps(d[1][b], d[2][b]);
        e[2][b] = _mm256_sub_ps(d[2][b], d[1][b]);
        e[3][b] = _mm256_sub_ps(d[1][b], d[3][b]);
      }
      for (int a = 0; a < 4; ++a) {
        float* row = out + (a * 4) * ld + c;
        Store(row, _mm256_sub_ps(e[a][0], e[a][2]), lanes, mask);
        Store(row + ld, _mm256_add_ps(e[a][1], e[a][2]), lanes, mask);
        Store(row + 2 * ld, _mm256_sub_ps(e[a][2], e[a][1]), lanes, mask);
        Store(row + 3 * ld, _mm256_sub_ps(e[a][1], e[a][3]), lanes, mask);
      }
    }
  }
}

// y at the chunk's tiles: A^T m A + bias, 8 output channels at a time (the
// last group masked).
void TransformOutputs(const Winograd3x3Shape& s, const Winograd3x3::Weights& w, const float* m,
                      const Tile* tiles, int64_t count, float* y) {
  const int64_t k_channels = w.out_channels, ld = kChunk * w.padded_out;
  for (int64_t i = 0; i < count; ++i) {
    const Tile& tile = tiles[i];
    const bool second_row = tile.row + 1 < s.out_height, second_col = tile.col + 1 < s.out_width;
    float* out = y + ((tile.image * s.out_height + tile.row) * s.out_width + tile.col) * k_channels;
    const float* in = m + i * w.padded_out;
    for (int64_t k = 0; k < k_channels; k += 8) {
      // (m and the bias are padded to whole panels: only the stores mask.)
      const int64_t lanes = std::min<int64_t>(8, k_channels - k);
      const __m256i mask = LaneMask(lanes);
      __m256 p[4][4];
      for (int a = 0; a < 4; ++a) {
        for (int b = 0; b < 4; ++b) p[a][b] = _mm256_loadu_ps(in + (a * 4 + b) * ld + k);
      }
      // A^T m: rows m0 + m1 + m2 and m1 - m2 - m3; then the same on columns.
      __m256 q[2][4];
      for (int b = 0; b < 4; ++b) {
        q[0][b] = _mm256_add_ps(_mm256_add_ps(p[0][b], p[1][b]), p[2][b]);
        q[1][b] = _mm256_sub_ps(_mm256_sub_ps(p[1][b], p[2][b]), p[3][b]);
      }
      const __m256 bias = _mm256_loadu_ps(w.bias.data() + k);
      for (int a = 0; a < (second_row ? 2 : 1); ++a) {
        float* row = out + a * s.out_width * k_channels + k;
        Store(row, _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(q[a][0], q[a][1]), q[a][2]), bias),
              lanes, mask);
        if (second_col) {
          Store(row + k_channels,
                _mm256_add_ps(_mm256_sub_ps(_mm256_sub_ps(q[a][1], q[a][2]), q[a][3]), bias), lanes,
                mask);
        }
      }
    }
  }
}

}  // namespace

void RunWinograd3x3Avx2(const Winograd3x3::Weights& w, const Winograd3x3Shape& s, const float* x,
                        float* y) {
  const int64_t tile_rows = (s.out_height + 1) / 2, tile_cols = (s.out_width + 1) / 2;
  const int64_t tiles_per_image = tile_rows * tile_cols, tiles = s.batch * tiles_per_image;
  const int64_t panels = w.padded_out / 16;
  // Per thread, kept: a steady-state call allocates nothing.
  thread_local std::vector<float> v, m;
  v.resize(16 * kChunk * w.in_channels);
  m.resize(16 * kChunk * w.padded_out);
  Tile chunk_tiles[kChunk];
  for (int64_t first = 0; first < tiles; first += kChunk) {
    const int64_t count = std::min(kChunk, tiles - first);
    for (int64_t i = 0; i < count; ++i) {
      chunk_tiles[i] = TileAt(tile_cols, tiles_per_image, first + i);
    }
    TransformInputs(s, w.in_channels, x, chunk_tiles, count, v.data());
    for (int64_t position = 0; position < 16; ++position) {
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
    TransformOutputs(s, w, m.data(), chunk_tiles, count, y);
  }
}

}  // namespace ops
}  // namespace static_runtime
