#include "ops/rnn/lstm_gates.h"

#include <vector>

#include "ATen/ATen.h"
#include "ops/core/cpu_isa.h"
#include "ops/rnn/lstm_gates_impl.h"

namespace static_runtime {
namespace ops {
namespace {

// Rows of `n` values spread over [-30, 30], laid out with a gap after each
// row so that ATen's loops run row by row, as on the chunks of LSTM gates.
at::Tensor ProbeRows(int64_t n) {
  const int64_t rows = (4000 + n - 1) / n;
  at::Tensor rows_with_gap = at::empty({rows, n + 1}, at::kFloat).narrow(1, 0, n);
  rows_with_gap.copy_(at::linspace(-30, 30, rows * n, at::kFloat).view({rows, n}));
  return rows_with_gap;
}

// Whether `kernels` compute ATen's sigmoid and tanh, bit for bit, on rows of
// lengths where the vector/scalar split of AVX2 and AVX512 loops differ.
bool MatchesAten(const LstmIsaKernels& kernels) {
  for (int64_t n : {1, 8, 16, 31, 32, 33, 64, 100}) {
    const at::Tensor x = ProbeRows(n);
    const at::Tensor packed = x.contiguous();
    at::Tensor sigmoid = packed.clone();
    at::Tensor tanh = at::empty_like(packed);
    for (int64_t row = 0; row < x.size(0); ++row) {
      kernels.sigmoid_row(sigmoid.data_ptr<float>() + row * n, n);
      kernels.tanh_row(packed.data_ptr<float>() + row * n, tanh.data_ptr<float>() + row * n, n);
    }
    if (!at::equal(sigmoid, x.sigmoid()) || !at::equal(tanh, x.tanh())) return false;
  }
  return true;
}

}  // namespace

const RnnSteps& RnnStepsForThisCpu() {
  static const RnnSteps kSteps = [] {
    std::vector<LstmIsaKernels> candidates;
    if (CpuRunsAvx512()) {
      candidates.push_back(LstmKernelsAvx512());
      candidates.push_back(LstmKernelsAvx512InAvx2Loops());
    }
    if (CpuRunsAvx2()) candidates.push_back(LstmKernelsAvx2());
    for (const LstmIsaKernels& kernels : candidates) {
      if (MatchesAten(kernels)) {
        return RnnSteps{kernels.step, kernels.gru_step, kernels.tanh_step, kernels.relu_step,
                        kernels.name};
      }
    }
    return RnnSteps{};
  }();
  return kSteps;
}

const std::vector<FastRnnSteps>& FastRnnStepsThisCpuRuns() {
  static const std::vector<FastRnnSteps> kSteps = [] {
    std::vector<FastRnnSteps> steps;
    if (CpuRunsAvx512()) steps.push_back(FastRnnStepsAvx512());
    if (CpuRunsAvx2()) steps.push_back(FastRnnStepsAvx2());
    return steps;
  }();
  return kSteps;
}

const FastRnnSteps& FastRnnStepsForThisCpu() {
  static const FastRnnSteps kNone;
  const std::vector<FastRnnSteps>& steps = FastRnnStepsThisCpuRuns();
  return steps.empty() ? kNone : steps.front();
}

}  // namespace ops
}  // namespace static_runtime
