#include "ops/quantized/rowwise_embedding_bag.h"

#include <immintrin.h>

#include <cstring>
#include <vector>

#include "c10/util/Half.h"
#include "ops/core/cpu_isa.h"

namespace static_runtime {
namespace quantized {
namespace {

// out[j] = float(double(scale) * q[j] + double(out[j] + bias)), j < dim.
void AccumulateRowScalar(const uint8_t* q, int64_t dim, float scale, float bias, float* out) {
  const double wide_scale = scale;
  for (int64_t j = 0; j < dim; ++j) {
    out[j] = static_cast<float>(wide_scale * q[j] + static_cast<double>(out[j] + bias));
  }
}

// The same, 16 values at a time. Every step is one IEEE operation of the
// scalar form (the double product is exact, so a fused multiply-add rounds
// as the separate add does).
__attribute__((target("avx512f"))) void AccumulateRowAvx512(const uint8_t* q, int64_t dim,
                                                            float scale, float bias, float* out) {
  const __m512d wide_scale = _mm512_set1_pd(scale);
  const __m512 bias16 = _mm512_set1_ps(bias);
  int64_t j = 0;
  for (; j + 16 <= dim; j += 16) {
    const __m512i values =
        _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(q + j)));
    const __m512 shifted = _mm512_add_ps(_mm512_loadu_ps(out + j), bias16);
    const __m512d low =
        _mm512_fmadd_pd(wide_scale, _mm512_cvtepi32_pd(_mm512_castsi512_si256(values)),
                        _mm512_cvtps_pd(_mm512_castps512_ps256(shifted)));
    const __m512d high = _mm512_fmadd_pd(
        wide_scale, _mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(values, 1)),
        _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(shifted), 1))));
    _mm256_storeu_ps(out + j, _mm512_cvtpd_ps(low));
    _mm256_storeu_ps(out + j + 8, _mm512_cvtpd_ps(high));
  }
  AccumulateRowScalar(q + j, dim - j, scale, bias, out + j);
}

using AccumulateRow = void (*)(const uint8_t*, int64_t, float, float, float*);

AccumulateRow ChooseAccumulateRow() {
  return ops::CpuRunsAvx512() ? AccumulateRowAvx512 : AccumulateRowScalar;
}

float LoadFloat(const uint8_t* bytes) {
  float value;
  std::memcpy(&value, bytes, sizeof(value));
  return value;
}

float LoadHalf(const uint8_t* bytes) {
  c10::Half value;
  std::memcpy(&value, bytes, sizeof(value));
  return static_cast<float>(value);
}

}  // namespace

template <typename Index, typename Offset>
void PoolBags(const RowwiseTable& table, const Index* indices, const Offset* starts,
              int64_t last_end, const float* per_sample_weights, int64_t bags, float* out) {
  static const AccumulateRow accumulate = ChooseAccumulateRow();
  const int64_t dim = table.dim();
  // A 4-bit row's values, one a byte, for the 8-bit loop.
  thread_local std::vector<uint8_t> unpacked;
  if (table.bits == 4 && static_cast<int64_t>(unpacked.size()) < dim) unpacked.resize(dim);
  for (int64_t b = 0; b < bags; ++b, out += dim) {
    std::memset(out, 0, dim * sizeof(float));
    const int64_t end = b + 1 < bags ? static_cast<int64_t>(starts[b + 1]) : last_end;
    for (int64_t i = starts[b]; i < end; ++i) {
      const uint8_t* row = table.data + static_cast<int64_t>(indices[i]) * table.row_bytes;
      const float weight = per_sample_weights != nullptr ? per_sample_weights[i] : 1.0f;
      if (table.bits == 8) {
        accumulate(row, dim, weight * LoadFloat(row + dim), weight * LoadFloat(row + dim + 4), out);
      } else {
        for (int64_t j = 0; j < dim; j += 2) {
          unpacked[j] = row[j / 2] & 0xF;
          unpacked[j + 1] = row[j / 2] >> 4;
        }
        const uint8_t* scale_bias = row + table.row_bytes - 4;
        accumulate(unpacked.data(), dim, weight * LoadHalf(scale_bias),
                   weight * LoadHalf(scale_bias + 2), out);
      }
    }
  }
}

template void PoolBags(const RowwiseTable&, const int32_t*, const int32_t*, int64_t, const float*,
                       int64_t, float*);
template void PoolBags(const RowwiseTable&, const int32_t*, const int64_t*, int64_t, const float*,
                       int64_t, float*);
template void PoolBags(const RowwiseTable&, const int64_t*, const int32_t*, int64_t, const float*,
                       int64_t, float*);
template void PoolBags(const RowwiseTable&, const int64_t*, const int64_t*, int64_t, const float*,
                       int64_t, float*);

}  // namespace quantized
}  // namespace static_runtime
