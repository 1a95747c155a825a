// The mean over the height and width of a float32 channels-last [N, C, H, W]
// tensor (adaptive_avg_pool2d to 1x1, the squeeze-excite and classifier
// pools of CNNs whose convolutions chose channels-last), bit for bit as
// ATen's CPU kernels compute it (at::mean: its sum, then a division by
// H * W), faster.
//
// ATen sums such a tensor with its "outer" cascade sum
// (aten/src/ATen/native/cpu/SumKernel.cpp): each channel's H * W values
// (one per position, C floats apart) are added in ATen's cascade (a running
// sum of blocks of 2^p values carried into up to three higher levels, p from
// the count), and which cascade depends on the channel: channels in whole
// groups of four of ATen's vectors (four channels when C is below one
// vector) take the cascade over all positions; the others take four of them
// over the positions of each residue mod 4, the positions past the last
// four added to the first, then the four added in order. Every channel's
// order is its own (each lane of a vector is one channel), so the kernel
// here sums 64 channels per pass over the positions in AVX-512 registers (32
// in AVX2 ones) and needs only ATen's vector width for the split. At first
// use a probe compares each candidate with at::mean on channel counts
// around every split and position counts around the cascade's levels, with
// special values, and the first that matches bit for bit (NaNs by position)
// is used; with none, ATen's own.
#ifndef STATIC_RUNTIME_OPS_NN_GLOBAL_AVG_POOL_H_
#define STATIC_RUNTIME_OPS_NN_GLOBAL_AVG_POOL_H_

#include <cstdint>
#include <vector>

#include "ATen/core/Tensor.h"
#include "ops/nn/aten_order_kernels.h"

namespace static_runtime {
namespace ops {

// The operands: `batch` images of `positions` rows of `channels` floats at
// `x` (channels-last, contiguous), each channel's mean into `y` ([batch,
// channels], contiguous).
struct ChannelsLastPlanes {
  const float* x;
  float* y;
  int64_t batch;
  int64_t channels;
  int64_t positions;
};

using GlobalAvgPoolFn = void (*)(const ChannelsLastPlanes& planes);

// A candidate kernel (ops/nn/aten_order_kernels.h).
using GlobalAvgPoolKernel = AtenOrderKernel<GlobalAvgPoolFn>;

// The candidates this CPU runs, in order of preference: "avx2 order on
// avx512" and "avx512" (AVX-512 F, BW, VL, DQ: ATen's 8- and 16-lane
// splits), then "avx2" (AVX2, FMA).
std::vector<GlobalAvgPoolKernel> GlobalAvgPoolCandidates();

// The first candidate that matches ATen's mean on this CPU, or none.
const GlobalAvgPoolKernel& GlobalAvgPoolForThisCpu();

// at::mean_out(out, self, {-1, -2}, /*keepdim=*/true) where `self` is a
// channels-last float32 [N, C, H, W] tensor (C and H * W above 1) that ATen
// would sum on one thread and `out` a float32 tensor: empty (resized here
// to a contiguous [N, C, 1, 1], as ATen's mean_out resizes it) or
// [N, C, 1, 1] with its elements laid out as a contiguous [N, C] one; false,
// with `out` untouched, for anything else or without a kernel.
bool GlobalAvgPoolInto(const at::Tensor& self, at::Tensor& out);

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_NN_GLOBAL_AVG_POOL_H_
