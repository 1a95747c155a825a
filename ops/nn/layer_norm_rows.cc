#include "ops/nn/layer_norm_rows.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "ATen/ATen.h"
#include "ATen/Parallel.h"
#include "ops/core/cpu_kernels.h"
#include "ops/nn/layer_norm_rows_impl.h"

namespace static_runtime {
namespace ops {
namespace {

// 13 rows (groups of rows of every size, and a row alone) of each length:
// every length up to 40, the lengths around whole vectors, chunks (16
// vectors) and cascade levels of both widths, values spread far from their
// mean; then rows with infinities, NaN, equal, huge and tiny values.
std::vector<at::Tensor> ProbeInputs() {
  std::vector<at::Tensor> inputs;
  const at::Generator generator = at::detail::createCPUGenerator(81);
  std::vector<int64_t> lengths;
  for (int64_t n = 1; n <= 40; ++n) lengths.push_back(n);
  for (int64_t n : {127, 128, 129, 255, 256, 257, 383, 513, 768, 1100, 2049, 4100, 9000}) {
    lengths.push_back(n);
  }
  for (int64_t n : lengths) {
    inputs.push_back(at::randn({13, n}, generator) * 3 + 50 * at::randn({13, 1}, generator));
  }
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int64_t n : {5, 24, 300}) {
    at::Tensor special = at::randn({8, n}, generator);
    special[0][n - 1] = -inf;
    special[1].fill_(inf);
    special[2][n / 2] = nan;
    special[3].fill_(0.5);
    special[4][0] = 3e38;
    special[5].mul_(1e-39);
    special[6][n - 1] = -0.0;
    inputs.push_back(special);
  }
  return inputs;
}

// `kernel` on the m rows of n values of `x` (contiguous), on the intra-op
// threads.
void RunKernel(LayerNormRowsFn kernel, const at::Tensor& x, const at::Tensor& gamma,
               const at::Tensor& beta, int64_t m, int64_t n, double eps, at::Tensor& y,
               at::Tensor& mean, at::Tensor& rstd) {
  const LayerNormRows rows{x.data_ptr<float>(),
                           gamma.defined() ? gamma.data_ptr<float>() : nullptr,
                           beta.defined() ? beta.data_ptr<float>() : nullptr,
                           y.data_ptr<float>(),
                           mean.data_ptr<float>(),
                           rstd.data_ptr<float>(),
                           n,
                           static_cast<float>(eps)};
  // About GRAIN_SIZE values per task.
  const int64_t grain = std::max<int64_t>(1, at::internal::GRAIN_SIZE / n);
  at::parallel_for(0, m, grain, [&](int64_t first, int64_t last) { kernel(rows, first, last); });
}

// Whether `kernel` gives ATen's output, mean and rstd bit for bit on the
// probe's rows, with and without gamma and beta, at two epsilons.
bool MatchesAten(LayerNormRowsFn kernel) {
  const at::Generator generator = at::detail::createCPUGenerator(82);
  for (const at::Tensor& x : ProbeInputs()) {
    const int64_t n = x.size(1);
    const at::Tensor gamma = at::randn({n}, generator);
    const at::Tensor beta = at::randn({n}, generator);
    for (int affine = 0; affine < 3; ++affine) {
      const at::Tensor g = affine == 2 ? at::Tensor() : gamma;
      const at::Tensor b = affine >= 1 ? at::Tensor() : beta;
      const double eps = affine == 0 ? 1e-5 : 1e-12;
      at::Tensor y = at::empty_like(x);
      at::Tensor mean = at::empty({x.size(0)});
      at::Tensor rstd = at::empty({x.size(0)});
      RunKernel(kernel, x, g, b, x.size(0), n, eps, y, mean, rstd);
      const auto aten = at::native_layer_norm(x, {n}, g, b, eps);
      if (!SameBitsOrBothNan(y, std::get<0>(aten)) ||
          !SameBitsOrBothNan(mean, std::get<1>(aten).view({-1})) ||
          !SameBitsOrBothNan(rstd, std::get<2>(aten).view({-1}))) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace

std::vector<LayerNormRowsKernel> LayerNormRowsCandidates() {
  return Avx2OrderCandidates(LayerNormRowsAvx2OrderOnAvx512(), LayerNormRowsAvx2());
}

const LayerNormRowsKernel& LayerNormRowsForThisCpu() {
  static const LayerNormRowsKernel kKernel = FirstMatching(LayerNormRowsCandidates(), MatchesAten);
  return kKernel;
}

void FastLayerNormInto(const at::Tensor& x, const at::Tensor& gamma, const at::Tensor& beta,
                       int64_t m, int64_t n, double eps, at::Tensor& out, at::Tensor& mean,
                       at::Tensor& rstd) {
  const LayerNormRowsFn kernel = LayerNormRowsForThisCpu().run;
  const auto is_float = [](const at::Tensor& t) {
    return !t.defined() || t.scalar_type() == at::kFloat;
  };
  if (kernel == nullptr || x.scalar_type() != at::kFloat || !is_float(gamma) || !is_float(beta) ||
      n == 0) {
    LayerNormInto(x, gamma, beta, m, n, eps, out, mean, rstd);
    return;
  }
  RunKernel(kernel, x, gamma, beta, m, n, eps, out, mean, rstd);
}

}  // namespace ops
}  // namespace static_runtime
