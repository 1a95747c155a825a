// StreamedRowsAvx512 (ops/linalg/streamed_linear_loops.h): one vector a
// step of a panel.
#include <immintrin.h>

#include "ops/linalg/streamed_linear_impl.h"
#include "ops/linalg/streamed_linear_loops.h"

namespace static_runtime {
namespace ops {
namespace {

struct Avx512 {
  using Vec = __m512;
  static constexpr int kLanes = 16;
  // At least eight chains where the rows allow (32 registers).
  static constexpr int PanelsAtOnce(int rows) {
    return rows == 1 ? 8 : rows == 2 ? 4 : rows < 8 ? 2 : 1;
  }
  static Vec Zero() { return _mm512_setzero_ps(); }
  static Vec Load(const float* p) { return _mm512_loadu_ps(p); }
  static Vec Broadcast(const float* p) { return _mm512_set1_ps(*p); }
  static Vec Fma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
  static Vec Add(Vec a, Vec b) { return _mm512_add_ps(a, b); }
  static void Store(float* p, Vec v) { _mm512_storeu_ps(p, v); }
};

}  // namespace

void StreamedRowsAvx512(const float* panels, const float* bias, int64_t n, int64_t k,
                        const float* const* x, int64_t rows, float* y, int64_t y_row_stride) {
  StreamedLoops<Avx512>::AnyRows<kStreamedAvx512Rows>(panels, bias, n, k, x, rows, y, y_row_stride);
}

}  // namespace ops
}  // namespace static_runtime
