#include "ops/nn/global_avg_pool.h"

#include <array>
#include <limits>
#include <vector>

#include "ATen/ATen.h"
#include "ATen/NativeFunctions.h"
#include "ATen/Parallel.h"
#include "ops/nn/global_avg_pool_impl.h"

namespace static_runtime {
namespace ops {
namespace {

// Whether ATen sums `self` on this thread alone (TensorIterator's
// parallel_reduce): other threads would split the channels, and with them
// ATen's groups.
bool AtenSumsSerially(const at::Tensor& self) {
  return self.numel() < at::internal::GRAIN_SIZE || at::get_num_threads() == 1 ||
         at::in_parallel_region();
}

// Channel counts around each split (groups of four vectors of 8 and 16
// lanes, four channels below a vector) and position counts around the
// cascade's blocks and levels, two images each, values of mixed signs and
// magnitudes; then special values.
std::vector<at::Tensor> ProbeInputs() {
  const at::Generator generator = at::detail::createCPUGenerator(83);
  std::vector<at::Tensor> inputs;
  for (int64_t channels : {2, 3, 5, 7, 8, 9, 15, 17, 31, 33, 40, 63, 65, 100, 130}) {
    for (int64_t positions : {2, 3, 5, 15, 17, 49, 65, 196, 300, 1030}) {
      const at::Tensor scale =
          at::pow(2.0, at::randint(-8, 9, {2, channels, positions, 1}, generator));
      inputs.push_back((at::randn({2, channels, positions, 1}, generator) * scale)
                           .contiguous(at::MemoryFormat::ChannelsLast));
    }
  }
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  at::Tensor special = at::randn({1, 40, 7, 7}, generator);
  special[0][0][3][3] = inf;
  special[0][1][0][0] = -inf;
  special[0][2][6][6] = nan;
  special[0][3].fill_(-0.0);
  special[0][4][1][1] = 3e38;
  special[0][4][2][2] = 3e38;
  special[0][5].mul_(1e-39);
  special[0][39][0][0] = nan;
  special[0][38].fill_(-0.0);
  inputs.push_back(special.contiguous(at::MemoryFormat::ChannelsLast));
  return inputs;
}

void RunKernel(GlobalAvgPoolFn kernel, const at::Tensor& self, at::Tensor& out) {
  kernel({self.data_ptr<float>(), out.data_ptr<float>(), self.size(0), self.size(1),
          self.size(2) * self.size(3)});
}

bool MatchesAten(GlobalAvgPoolFn kernel) {
  for (const at::Tensor& x : ProbeInputs()) {
    at::Tensor ours = at::empty({x.size(0), x.size(1), 1, 1});
    RunKernel(kernel, x, ours);
    if (!SameBitsOrBothNan(ours, at::mean(x, {-1, -2}, /*keepdim=*/true))) return false;
  }
  return true;
}

}  // namespace

std::vector<GlobalAvgPoolKernel> GlobalAvgPoolCandidates() {
  return Avx2OrderCandidates(GlobalAvgPoolAvx2OrderOnAvx512(), GlobalAvgPoolAvx2(),
                             /*in_avx512_order=*/GlobalAvgPoolAvx512());
}

const GlobalAvgPoolKernel& GlobalAvgPoolForThisCpu() {
  static const GlobalAvgPoolKernel kKernel = FirstMatching(GlobalAvgPoolCandidates(), MatchesAten);
  return kKernel;
}

bool GlobalAvgPoolInto(const at::Tensor& self, at::Tensor& out) {
  if (self.dim() != 4 || self.scalar_type() != at::kFloat || !self.device().is_cpu()) return false;
  const int64_t batch = self.size(0), channels = self.size(1);
  const int64_t positions = self.size(2) * self.size(3);
  // One channel or one position: ATen's iterator sees another layout.
  if (channels < 2 || positions < 2 || batch == 0) return false;
  if (!self.is_contiguous(at::MemoryFormat::ChannelsLast) || !AtenSumsSerially(self)) return false;
  const GlobalAvgPoolFn kernel = GlobalAvgPoolForThisCpu().run;
  if (kernel == nullptr || out.scalar_type() != at::kFloat) return false;
  const std::array<int64_t, 4> sizes = {batch, channels, 1, 1};
  // Resized as ATen's mean_out resizes (contiguous); kept if already sized.
  if (out.sizes() != at::IntArrayRef(sizes)) {
    if (out.numel() != 0) return false;
    at::native::resize_(out, sizes);
  }
  if ((batch > 1 && out.stride(0) != channels) || out.stride(1) != 1) return false;
  RunKernel(kernel, self, out);
  return true;
}

}  // namespace ops
}  // namespace static_runtime
