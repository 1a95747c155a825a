// The body of the global average pool kernels (ops/nn/global_avg_pool.h),
// included once per ISA by a translation unit compiled with that ISA's flags
// and ATen's CPU_CAPABILITY macros, so at::vec::Vectorized<float> is that
// ISA's, and without floating-point contraction.
//
// Each channel is one lane; every lane goes through the additions of ATen's
// cascade sum for its channel in ATen's order (each addition one IEEE
// rounding, starting from +0 as ATen's zero-filled output and
// accumulators do), then one division by H * W.
#ifndef STATIC_RUNTIME_OPS_NN_GLOBAL_AVG_POOL_IMPL_H_
#define STATIC_RUNTIME_OPS_NN_GLOBAL_AVG_POOL_IMPL_H_

#include <algorithm>
#include <cstdint>

#include "ATen/cpu/vec/vec.h"
#include "ops/nn/global_avg_pool.h"

namespace static_runtime {
namespace ops {

// Defined in global_avg_pool_avx2.cc and global_avg_pool_avx512.cc (the
// candidates of GlobalAvgPoolForThisCpu): ATen's split for its 8-lane
// (AVX2) and 16-lane (AVX512) vectors.
GlobalAvgPoolKernel GlobalAvgPoolAvx2();
GlobalAvgPoolKernel GlobalAvgPoolAvx2OrderOnAvx512();
GlobalAvgPoolKernel GlobalAvgPoolAvx512();

namespace CPU_CAPABILITY {

using Vec = at::vec::Vectorized<float>;

// ATen's utils::CeilLog2: ceil(log2(x)), and 1 for x <= 2.
inline int64_t CeilLog2(int64_t x) {
  return x <= 2 ? 1 : 64 - __builtin_clzll(static_cast<uint64_t>(x - 1));
}

// ATen's multi_row_sum: the cascade sum of `count` items of kVectors
// vectors each (item i's vector v is load(i, v)), lane by lane: blocks of
// 2^p items into the first level, each block's sum carried up the levels
// as far as i's bits say, then the levels added to the first.
template <int kVectors, typename Load>
inline void Cascade(int64_t count, const Load& load, Vec (&sum)[kVectors]) {
  constexpr int kLevels = 4;
  const int64_t level_power = std::max<int64_t>(4, CeilLog2(count) / kLevels);
  const int64_t level_step = int64_t{1} << level_power;
  const int64_t level_mask = level_step - 1;
  Vec acc[kLevels][kVectors];
#pragma GCC unroll 4
  for (int level = 0; level < kLevels; ++level) {
#pragma GCC unroll 16
    for (int v = 0; v < kVectors; ++v) acc[level][v] = Vec(0.f);
  }
  int64_t i = 0;
  while (i + level_step <= count) {
    for (int64_t j = 0; j < level_step; ++j, ++i) {
#pragma GCC unroll 16
      for (int v = 0; v < kVectors; ++v) acc[0][v] = acc[0][v] + load(i, v);
    }
#pragma GCC unroll 4
    for (int level = 1; level < kLevels; ++level) {
#pragma GCC unroll 16
      for (int v = 0; v < kVectors; ++v) {
        acc[level][v] = acc[level][v] + acc[level - 1][v];
        acc[level - 1][v] = Vec(0.f);
      }
      if ((i & (level_mask << (level * level_power))) != 0) break;
    }
  }
  for (; i < count; ++i) {
#pragma GCC unroll 16
    for (int v = 0; v < kVectors; ++v) acc[0][v] = acc[0][v] + load(i, v);
  }
#pragma GCC unroll 4
  for (int level = 1; level < kLevels; ++level) {
#pragma GCC unroll 16
    for (int v = 0; v < kVectors; ++v) acc[0][v] = acc[0][v] + acc[level][v];
  }
#pragma GCC unroll 16
  for (int v = 0; v < kVectors; ++v) sum[v] = acc[0][v];
}

// ATen's row_sum: four cascades, over the items of each residue mod 4, the
// items past the last four added to the first cascade's sum, then the other
// three added to it in order.
template <int kVectors, typename Load>
inline void ResidueCascades(int64_t count, const Load& load, Vec (&sum)[kVectors]) {
  const int64_t quads = count / 4;
  Vec partial[4 * kVectors];
  Cascade<4 * kVectors>(
      quads, [&](int64_t i, int w) { return load(4 * i + w / kVectors, w % kVectors); }, partial);
  for (int64_t i = quads * 4; i < count; ++i) {
#pragma GCC unroll 16
    for (int v = 0; v < kVectors; ++v) partial[v] = partial[v] + load(i, v);
  }
#pragma GCC unroll 4
  for (int k = 1; k < 4; ++k) {
#pragma GCC unroll 16
    for (int v = 0; v < kVectors; ++v) partial[v] = partial[v] + partial[k * kVectors + v];
  }
#pragma GCC unroll 16
  for (int v = 0; v < kVectors; ++v) sum[v] = partial[v];
}

// Cascade (`whole`) or ResidueCascades.
template <int kVectors, typename Load>
inline void Sum(int64_t count, const Load& load, bool whole, Vec (&sum)[kVectors]) {
  if (whole) {
    Cascade<kVectors>(count, load, sum);
  } else {
    ResidueCascades<kVectors>(count, load, sum);
  }
}

// The means of `lanes` channels from `channel` on (kVectors vectors, the
// last `lanes - (kVectors - 1) * Vec::size()` lanes of the last one used)
// of image `x`, into `y`, by Cascade (`whole`) or ResidueCascades.
template <int kVectors>
inline void ChannelBlock(const float* x, float* y, int64_t channels, int64_t positions,
                         int64_t channel, int64_t lanes, bool whole) {
  constexpr int64_t kLanes = Vec::size();
  const float* base = x + channel;
  Vec sum[kVectors];
  if (lanes == kVectors * kLanes) {
    const auto load = [&](int64_t i, int v) {
      return Vec::loadu(base + i * channels + v * kLanes);
    };
    Sum<kVectors>(positions, load, whole, sum);
  } else {
    const auto load = [&](int64_t i, int v) {
      return Vec::loadu(base + i * channels + v * kLanes, std::min(kLanes, lanes - v * kLanes));
    };
    Sum<kVectors>(positions, load, whole, sum);
  }
  const Vec count(static_cast<float>(positions));
#pragma GCC unroll 16
  for (int v = 0; v < kVectors; ++v) {
    const Vec mean = (Vec(0.f) + sum[v]) / count;
    mean.store(y + channel + v * kLanes, std::min(kLanes, lanes - v * kLanes));
  }
}

// The channels of [first, last), whole blocks of four vectors, then one
// vector at a time (the last one partial).
inline void Channels(const float* x, float* y, int64_t channels, int64_t positions, int64_t first,
                     int64_t last, bool whole) {
  constexpr int64_t kLanes = Vec::size();
  int64_t c = first;
  for (; c + 4 * kLanes <= last; c += 4 * kLanes) {
    ChannelBlock<4>(x, y, channels, positions, c, 4 * kLanes, whole);
  }
  for (; c < last; c += kLanes) {
    ChannelBlock<1>(x, y, channels, positions, c, std::min(kLanes, last - c), whole);
  }
}

// ATen's split for its vectors of kAtenLanes floats: the channels in whole
// groups of four vectors (of four channels, below one vector) take the
// cascade over all positions, the rest the residue cascades.
template <int64_t kAtenLanes>
void GlobalAvgPoolImpl(const ChannelsLastPlanes& planes) {
  const int64_t channels = planes.channels;
  const int64_t group = channels >= kAtenLanes ? 4 * kAtenLanes : 4;
  const int64_t whole_end = channels / group * group;
  for (int64_t n = 0; n < planes.batch; ++n) {
    const float* x = planes.x + n * planes.positions * channels;
    float* y = planes.y + n * channels;
    Channels(x, y, channels, planes.positions, 0, whole_end, /*whole=*/true);
    Channels(x, y, channels, planes.positions, whole_end, channels, /*whole=*/false);
  }
}

}  // namespace CPU_CAPABILITY
}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_NN_GLOBAL_AVG_POOL_IMPL_H_
