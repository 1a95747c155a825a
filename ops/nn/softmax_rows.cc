#include "ops/nn/softmax_rows.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "ATen/ATen.h"
#include "ATen/Parallel.h"
#include "ops/core/cpu_isa.h"
#include "ops/core/cpu_kernels.h"
#include "ops/nn/aten_order_kernels.h"
#include "ops/nn/softmax_rows_avx512.h"

namespace static_runtime {
namespace ops {
namespace {

void SoftmaxRowsAvx512(const float* in, float* out, int64_t rows, int64_t n) {
  // ATen's grain: about GRAIN_SIZE values' work per task.
  const int64_t grain = std::max<int64_t>(1, at::internal::GRAIN_SIZE / (16 * n));
  at::parallel_for(0, rows, grain, [&](int64_t first, int64_t last) {
    SoftmaxRowsAvx512InAvx2Order(in, out, first, last, n);
  });
}

// Rows of every length up to 70 and a few longer (the splits at 8 and 16
// lanes, the partial vectors), of values spread over a wide range, then
// rows with infinities, NaNs, equal values, huge and tiny ones.
std::vector<at::Tensor> ProbeInputs() {
  std::vector<at::Tensor> inputs;
  const at::Generator generator = at::detail::createCPUGenerator(81);
  for (int64_t n = 1; n <= 70; ++n) inputs.push_back(at::randn({9, n}, generator) * 6);
  for (int64_t n : {100, 128, 197, 255, 1000}) {
    inputs.push_back(at::randn({5, n}, generator) * 20);
  }
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int64_t n : {3, 8, 19, 40}) {
    at::Tensor special = at::randn({8, n}, generator);
    special[0][n - 1] = -inf;
    special[1].fill_(-inf);
    special[2][n / 2] = inf;
    special[3][0] = nan;
    special[4].fill_(0.5);
    special[5][n - 1] = 1e30;
    special[6].mul_(1e-38);
    special[7][0] = -0.0;
    inputs.push_back(special);
  }
  return inputs;
}

// Whether `kernel` gives ATen's softmax bit for bit (NaNs by position) on
// the probe's rows.
bool MatchesAten(SoftmaxRowsFn kernel) {
  for (const at::Tensor& x : ProbeInputs()) {
    at::Tensor ours = at::empty_like(x);
    kernel(x.data_ptr<float>(), ours.data_ptr<float>(), x.size(0), x.size(1));
    // Equal values, NaN where ATen has NaN.
    if (!SameBitsOrBothNan(ours, x.softmax(-1))) return false;
  }
  return true;
}

}  // namespace

SoftmaxRowsFn SoftmaxRowsForThisCpu() {
  static const SoftmaxRowsFn kKernel = []() -> SoftmaxRowsFn {
    // The instructions softmax_rows_avx512 is compiled for.
    if (!CpuRunsAvx512()) return nullptr;
    return MatchesAten(SoftmaxRowsAvx512) ? SoftmaxRowsAvx512 : nullptr;
  }();
  return kKernel;
}

void FastSoftmaxLastDimInto(const at::Tensor& x, const at::Tensor& out) {
  const SoftmaxRowsFn kernel = SoftmaxRowsForThisCpu();
  if (kernel == nullptr || x.scalar_type() != at::kFloat || x.numel() == 0) {
    SoftmaxLastDimInto(x, out);
    return;
  }
  const int64_t n = x.size(-1);
  kernel(x.data_ptr<float>(), out.data_ptr<float>(), x.numel() / n, n);
}

}  // namespace ops
}  // namespace static_runtime
