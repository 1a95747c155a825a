#include "ops/nn/group_norm_rows.h"

#include <algorithm>
#include <limits>
#include <tuple>
#include <vector>

#include "ATen/ATen.h"
#include "ATen/Parallel.h"
#include "ATen/native/group_norm.h"
#include "ops/nn/group_norm_rows_impl.h"

namespace static_runtime {
namespace ops {
namespace {

// `kernel` on x ([n, channels, spatial], contiguous) in `groups` groups.
void RunKernel(GroupNormRowsFn kernel, const at::Tensor& x, const at::Tensor& gamma,
               const at::Tensor& beta, int64_t n, int64_t channels, int64_t spatial, int64_t groups,
               double eps, at::Tensor& y, at::Tensor& mean, at::Tensor& rstd) {
  const GroupNormRows rows{x.data_ptr<float>(),
                           gamma.defined() ? gamma.data_ptr<float>() : nullptr,
                           beta.defined() ? beta.data_ptr<float>() : nullptr,
                           y.data_ptr<float>(),
                           mean.data_ptr<float>(),
                           rstd.data_ptr<float>(),
                           channels / groups,
                           spatial,
                           groups,
                           static_cast<float>(eps)};
  // ATen's grain: a row per task.
  at::parallel_for(0, n * groups, 1,
                   [&](int64_t first, int64_t last) { kernel(rows, first, last); });
}

// Whether `kernel` gives ATen's output, mean and rstd bit for bit: rows of
// lengths whose vector, chunk and cascade splits differ, one group and
// several, with and without gamma and beta, then special values.
bool MatchesAten(GroupNormRowsFn kernel) {
  const at::Generator generator = at::detail::createCPUGenerator(83);
  std::vector<at::Tensor> inputs;
  for (int64_t spatial : {1, 5, 8, 21, 128, 129, 700, 4099}) {
    inputs.push_back(at::randn({2, 6, spatial}, generator) * 3 + 20);
  }
  at::Tensor special = at::randn({2, 6, 40}, generator);
  special[0][1][3] = std::numeric_limits<float>::infinity();
  special[1][4][0] = std::numeric_limits<float>::quiet_NaN();
  special[1][0].mul_(1e-39);
  inputs.push_back(special);
  const at::Tensor gamma = at::randn({6}, generator);
  const at::Tensor beta = at::randn({6}, generator);
  for (const at::Tensor& x : inputs) {
    for (int64_t groups : {1, 3, 6}) {
      for (int affine = 0; affine < 4; ++affine) {
        const at::Tensor g = affine & 1 ? gamma : at::Tensor();
        const at::Tensor b = affine & 2 ? beta : at::Tensor();
        const double eps = affine == 0 ? 1e-8 : 1e-5;
        at::Tensor y = at::empty_like(x);
        at::Tensor mean = at::empty({2, groups});
        at::Tensor rstd = at::empty({2, groups});
        RunKernel(kernel, x, g, b, 2, 6, x.size(2), groups, eps, y, mean, rstd);
        const auto aten = at::native_group_norm(x, g, b, 2, 6, x.size(2), groups, eps);
        if (!SameBitsOrBothNan(y, std::get<0>(aten)) ||
            !SameBitsOrBothNan(mean, std::get<1>(aten)) ||
            !SameBitsOrBothNan(rstd, std::get<2>(aten))) {
          return false;
        }
      }
    }
  }
  return true;
}

}  // namespace

std::vector<GroupNormRowsKernel> GroupNormRowsCandidates() {
  return Avx2OrderCandidates(GroupNormRowsAvx2OrderOnAvx512(), GroupNormRowsAvx2());
}

const GroupNormRowsKernel& GroupNormRowsForThisCpu() {
  static const GroupNormRowsKernel kKernel = FirstMatching(GroupNormRowsCandidates(), MatchesAten);
  return kKernel;
}

void FastGroupNormInto(const at::Tensor& x, const at::Tensor& gamma, const at::Tensor& beta,
                       int64_t n, int64_t channels, int64_t spatial, int64_t groups, double eps,
                       at::Tensor& out, at::Tensor& mean, at::Tensor& rstd) {
  const GroupNormRowsFn kernel = GroupNormRowsForThisCpu().run;
  const auto is_float = [](const at::Tensor& t) {
    return !t.defined() || t.scalar_type() == at::kFloat;
  };
  if (kernel == nullptr || x.scalar_type() != at::kFloat || !is_float(gamma) || !is_float(beta) ||
      x.numel() == 0) {
    at::native::GroupNormKernel(at::kCPU, x, gamma, beta, n, channels, spatial, groups, eps, out,
                                mean, rstd);
    return;
  }
  RunKernel(kernel, x, gamma, beta, n, channels, spatial, groups, eps, out, mean, rstd);
}

}  // namespace ops
}  // namespace static_runtime
