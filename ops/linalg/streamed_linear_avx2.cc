// StreamedRowsAvx2 (ops/linalg/streamed_linear_loops.h): two vectors a step
// of a panel.
#include <immintrin.h>

#include "ops/linalg/streamed_linear_impl.h"
#include "ops/linalg/streamed_linear_loops.h"

namespace static_runtime {
namespace ops {
namespace {

struct Avx2 {
  using Vec = __m256;
  static constexpr int kLanes = 8;
  // At least eight chains where the rows allow (16 registers).
  static constexpr int PanelsAtOnce(int rows) { return rows == 1 ? 4 : rows == 2 ? 2 : 1; }
  static Vec Zero() { return _mm256_setzero_ps(); }
  static Vec Load(const float* p) { return _mm256_loadu_ps(p); }
  static Vec Broadcast(const float* p) { return _mm256_broadcast_ss(p); }
  static Vec Fma(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
  static Vec Add(Vec a, Vec b) { return _mm256_add_ps(a, b); }
  static void Store(float* p, Vec v) { _mm256_storeu_ps(p, v); }
};

}  // namespace

void StreamedRowsAvx2(const float* panels, const float* bias, int64_t n, int64_t k,
                      const float* const* x, int64_t rows, float* y, int64_t y_row_stride) {
  StreamedLoops<Avx2>::AnyRows<kStreamedAvx2Rows>(panels, bias, n, k, x, rows, y, y_row_stride);
}

}  // namespace ops
}  // namespace static_runtime
