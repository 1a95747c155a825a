// The body of ops/linalg/streamed_linear_loops.h's loops, written once over
// an ISA's traits (streamed_linear_avx2.cc, streamed_linear_avx512.cc):
// Isa::Vec of Isa::kLanes floats, Zero, Load, Broadcast, Fma, Add, Store.
#ifndef STATIC_RUNTIME_OPS_LINALG_STREAMED_LINEAR_IMPL_H_
#define STATIC_RUNTIME_OPS_LINALG_STREAMED_LINEAR_IMPL_H_

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>

#include "ops/linalg/streamed_linear_loops.h"

namespace static_runtime {
namespace ops {

// How far ahead of the step of k being multiplied the loops prefetch its
// panel, in steps (a step is one cache line; past a panel's end, the next
// panel's start). The hardware's prefetchers alone left 4-row products of
// 1024 x 2048 weights at 6.2-7.4 GB/s; 32 steps ahead read them at
// 10.3-10.6 GB/s (16: 8.8-9.7, 64: 10.2-10.3, 128: 9.1-9.3).
constexpr int64_t kStreamedPrefetchSteps = 32;

template <class Isa>
struct StreamedLoops {
  using Vec = typename Isa::Vec;
  static constexpr int kVecs = kStreamedPanel / Isa::kLanes;  // vectors a step of a panel

  // Rows [0, R) of y for P panels from `panel` (P x 16 outputs; of the
  // last, the first `valid` stored). Each row and vector of a panel is one
  // chain of multiply-adds, so that few rows take several panels at once:
  // their chains then overlap their latency.
  template <int P, int R>
  static void PanelRows(const float* panel, const float* bias, const float* const* x, int64_t k,
                        int64_t valid, float* y, int64_t y_row_stride) {
    Vec acc[P][R][kVecs];
#pragma GCC unroll 8
    for (int p = 0; p < P; ++p) {
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) {
#pragma GCC unroll 2
        for (int v = 0; v < kVecs; ++v) acc[p][r][v] = Isa::Zero();
      }
    }
    for (int64_t i = 0; i < k; ++i) {
      Vec w[P][kVecs];
#pragma GCC unroll 8
      for (int p = 0; p < P; ++p) {
        const float* step = panel + (p * k + i) * kStreamedPanel;
        _mm_prefetch(reinterpret_cast<const char*>(step + kStreamedPrefetchSteps * kStreamedPanel),
                     _MM_HINT_T0);
#pragma GCC unroll 2
        for (int v = 0; v < kVecs; ++v) w[p][v] = Isa::Load(step + v * Isa::kLanes);
      }
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) {
        const Vec xb = Isa::Broadcast(x[r] + i);
#pragma GCC unroll 8
        for (int p = 0; p < P; ++p) {
#pragma GCC unroll 2
          for (int v = 0; v < kVecs; ++v) acc[p][r][v] = Isa::Fma(xb, w[p][v], acc[p][r][v]);
        }
      }
    }
    alignas(64) float lanes[kStreamedPanel];
#pragma GCC unroll 8
    for (int p = 0; p < P; ++p) {
      const bool whole = p < P - 1 || valid == kStreamedPanel;
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) {
        float* out = y + r * y_row_stride + p * kStreamedPanel;
#pragma GCC unroll 2
        for (int v = 0; v < kVecs; ++v) {
          const Vec result =
              Isa::Add(acc[p][r][v], Isa::Load(bias + p * kStreamedPanel + v * Isa::kLanes));
          Isa::Store(whole ? out + v * Isa::kLanes : lanes + v * Isa::kLanes, result);
        }
        if (!whole) std::copy(lanes, lanes + valid, out);
      }
    }
  }

  // Every panel for R rows: P panels at a time (Isa::PanelsAtOnce), then
  // the rest one at a time.
  template <int R>
  static void Rows(const float* panels, const float* bias, int64_t n, int64_t k,
                   const float* const* x, float* y, int64_t y_row_stride) {
    constexpr int P = Isa::PanelsAtOnce(R);
    const int64_t count = (n + kStreamedPanel - 1) / kStreamedPanel;
    int64_t p = 0;
    for (; p + P <= count; p += P) {
      const int64_t valid = std::min(kStreamedPanel, n - (p + P - 1) * kStreamedPanel);
      PanelRows<P, R>(panels + p * kStreamedPanel * k, bias + p * kStreamedPanel, x, k, valid,
                      y + p * kStreamedPanel, y_row_stride);
    }
    for (; p < count; ++p) {
      const int64_t valid = std::min(kStreamedPanel, n - p * kStreamedPanel);
      PanelRows<1, R>(panels + p * kStreamedPanel * k, bias + p * kStreamedPanel, x, k, valid,
                      y + p * kStreamedPanel, y_row_stride);
    }
  }

  // 1 to kMaxRows rows: Rows<rows>, one table of them a row count.
  template <int kMaxRows>
  static void AnyRows(const float* panels, const float* bias, int64_t n, int64_t k,
                      const float* const* x, int64_t rows, float* y, int64_t y_row_stride) {
    static constexpr auto kTable = RowsTable(std::make_integer_sequence<int, kMaxRows>());
    kTable[rows - 1](panels, bias, n, k, x, y, y_row_stride);
  }

 private:
  using RowsFn = void (*)(const float*, const float*, int64_t, int64_t, const float* const*, float*,
                          int64_t);
  template <int... kRowsLess1>
  static constexpr std::array<RowsFn, sizeof...(kRowsLess1)> RowsTable(
      std::integer_sequence<int, kRowsLess1...>) {
    return {Rows<kRowsLess1 + 1>...};
  }
};

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_LINALG_STREAMED_LINEAR_IMPL_H_
