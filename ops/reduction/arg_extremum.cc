#include "ops/reduction/arg_extremum.h"

#include <emmintrin.h>
#include <xmmintrin.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "ATen/ATen.h"
#include "c10/core/WrapDimMinimal.h"

namespace static_runtime {
namespace ops {
namespace {

// Whether `value` replaces `best`, the extreme so far at a lower index.
template <typename T, bool kMax>
bool Replaces(T value, T best) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(best)) return false;
    if (std::isnan(value)) return true;
  }
  return kMax ? value > best : value < best;
}

// The index of the extreme of a line of n > 0 floats in SSE2 (every x86-64
// CPU runs it): the extreme of its numbers and whether it holds a NaN, four
// lanes at a time, then the first element equal to that extreme (or the
// first NaN). Replaces<float, kMax>'s choice, without its serial chain.
template <bool kMax>
int64_t FloatLineExtreme(const float* x, int64_t n) {
  constexpr float kStart =
      kMax ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  // _mm_max_ps and _mm_min_ps return their second operand when the first
  // is NaN: `extremes` keeps to the numbers.
  __m128 extremes = _mm_set1_ps(kStart);
  __m128 nans = _mm_setzero_ps();
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m128 v = _mm_loadu_ps(x + i);
    extremes = kMax ? _mm_max_ps(v, extremes) : _mm_min_ps(v, extremes);
    nans = _mm_or_ps(nans, _mm_cmpunord_ps(v, v));
  }
  alignas(16) float lanes[4];
  _mm_store_ps(lanes, extremes);
  float extreme = kStart;
  for (const float lane : lanes) extreme = kMax ? std::max(extreme, lane) : std::min(extreme, lane);
  bool any_nan = _mm_movemask_ps(nans) != 0;
  for (int64_t j = i; j < n; ++j) {
    if (std::isnan(x[j])) {
      any_nan = true;
    } else {
      extreme = kMax ? std::max(extreme, x[j]) : std::min(extreme, x[j]);
    }
  }
  const __m128 target = _mm_set1_ps(extreme);
  for (i = 0; i + 4 <= n; i += 4) {
    const __m128 v = _mm_loadu_ps(x + i);
    const int hits = _mm_movemask_ps(any_nan ? _mm_cmpunord_ps(v, v) : _mm_cmpeq_ps(v, target));
    if (hits != 0) return i + __builtin_ctz(hits);
  }
  for (; i < n; ++i) {
    if (any_nan ? std::isnan(x[i]) : x[i] == extreme) break;
  }
  return i;
}

// x is [outer, reduce, inner]; out [outer, inner].
template <typename T, bool kMax>
void Scan(const T* x, int64_t outer, int64_t reduce, int64_t inner, int64_t* out) {
  for (int64_t o = 0; o < outer; ++o) {
    const T* lines = x + o * reduce * inner;
    int64_t* index = out + o * inner;
    if constexpr (std::is_same_v<T, float>) {
      if (inner == 1) {
        *index = FloatLineExtreme<kMax>(lines, reduce);
        continue;
      }
    }
    if (inner == 1) {
      int64_t best = 0;
      for (int64_t r = 1; r < reduce; ++r) {
        if (Replaces<T, kMax>(lines[r], lines[best])) best = r;
      }
      *index = best;
      continue;
    }
    std::fill(index, index + inner, 0);
    for (int64_t r = 1; r < reduce; ++r) {
      const T* row = lines + r * inner;
      for (int64_t j = 0; j < inner; ++j) {
        if (Replaces<T, kMax>(row[j], lines[index[j] * inner + j])) index[j] = r;
      }
    }
  }
}

template <typename T>
void ScanEither(const T* x, int64_t outer, int64_t reduce, int64_t inner, bool is_max,
                int64_t* out) {
  is_max ? Scan<T, true>(x, outer, reduce, inner, out)
         : Scan<T, false>(x, outer, reduce, inner, out);
}

}  // namespace

bool ArgExtremumServes(const at::Tensor& self, c10::optional<int64_t> dim) {
  switch (self.scalar_type()) {
    case at::kFloat:
    case at::kDouble:
    case at::kLong:
    case at::kInt:
    case at::kByte:
      break;
    default:
      return false;
  }
  if (dim.has_value() && (*dim < -self.dim() || *dim >= self.dim())) return false;
  return self.dim() > 0 && self.numel() > 0 && self.numel() <= kArgExtremumMaxElements &&
         self.is_contiguous();
}

void ArgExtremumOut(const at::Tensor& self, c10::optional<int64_t> dim, bool keepdim, bool is_max,
                    at::Tensor& out) {
  std::vector<int64_t> sizes;
  int64_t outer = 1;
  int64_t reduce = self.numel();
  int64_t inner = 1;
  if (dim.has_value()) {
    const int64_t d = c10::maybe_wrap_dim(*dim, self.dim());
    reduce = self.size(d);
    for (int64_t i = 0; i < self.dim(); ++i) {
      if (i < d) outer *= self.size(i);
      if (i > d) inner *= self.size(i);
      if (i != d || keepdim) sizes.push_back(i == d ? 1 : self.size(i));
    }
  } else if (keepdim) {
    sizes.assign(self.dim(), 1);
  }
  out.resize_(sizes);
  // A result with strides of its own (a reused output) takes a copy.
  at::Tensor result = out.is_contiguous() ? out : at::empty(sizes, out.options());
  int64_t* indices = result.data_ptr<int64_t>();
  switch (self.scalar_type()) {
    case at::kFloat:
      ScanEither(self.data_ptr<float>(), outer, reduce, inner, is_max, indices);
      break;
    case at::kDouble:
      ScanEither(self.data_ptr<double>(), outer, reduce, inner, is_max, indices);
      break;
    case at::kLong:
      ScanEither(self.data_ptr<int64_t>(), outer, reduce, inner, is_max, indices);
      break;
    case at::kInt:
      ScanEither(self.data_ptr<int32_t>(), outer, reduce, inner, is_max, indices);
      break;
    default:
      ScanEither(self.data_ptr<uint8_t>(), outer, reduce, inner, is_max, indices);
  }
  if (!result.is_same(out)) out.copy_(result);
}

}  // namespace ops
}  // namespace static_runtime
