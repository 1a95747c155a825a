// The out-variant kernel of static_runtime::linear_fused (passes/prepack_weights.h):
// a oneDNN matmul with the frozen weight pre-packed (ops/linalg/onednn_matmul.h);
// the activation runs in place on the result (onednn::ApplyActivation). Products of at
// most 128K multiply-adds, and those of at most 16 rows by a weight of 1 MiB
// or more (a classifier on a batch of one), whose time is reading the weight
// from memory, run ops::StreamedLinear instead.
//
// Measured against ATen's linear (BLAS) for one thread, per call: 8x512->512
// 39 us against 119 us, 1x1024->4096 1.40 ms against 3.79 ms, 16x768->3072
// 0.99 ms against 2.10 ms, 128x768->768 1.53 ms against 1.86 ms (README).
//
// The input may have any number of leading dimensions (rows = their
// product); a non-contiguous input is made contiguous first. Inputs the kernel
// does not take (other dtypes, no rows, a last dimension not matching the
// weight) run ATen's linear, which gives ATen's result or error.
//
// Rows of zeros: windowed attention pads its token grid with zero rows up to
// a multiple of the window (torchvision's Swin on a map that is not a
// multiple of 7: at 64x64, 33 of the last stage's 49 rows and 12 of 16 in
// the third), and the query-key-value product then multiplies them. A row of
// zeros gives the bias alone when every weight is finite (0 x inf is NaN), so
// where at least a quarter of the rows are zero the kernel multiplies only
// the others, gathered, and gives the zero rows the bias.
//
// Numerics: oneDNN sums the K products in another order than BLAS; the
// kernel declares the bound in ops/linalg/linear_error_bound.h.
#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "ATen/ATen.h"
#include "c10/util/SmallVector.h"
#include "ir/operators/operators.h"
#include "ops/core/out_variant.h"
#include "ops/linalg/linear_error_bound.h"
#include "ops/linalg/onednn_matmul.h"
#include "ops/linalg/streamed_linear.h"
#include "ops/onednn/onednn.h"

namespace static_runtime {
namespace {

// The weight is [N, K], the bias [N] or undefined.
using LinearParams = onednn::FrozenParams;

// Products of at most this many multiply-adds run ops::StreamedLinear,
// where a oneDNN matmul's fixed cost per call (0.6-1 us) is most of its
// time. //ops/linalg:few_rows_linear_benchmark, one thread, weights in the
// caches, on an AVX-512 core: 1x128->300 2.1 us against oneDNN's 2.8,
// 16x64->32 0.52 against 1.02, 64x24->48 1.28 against 1.55, 4x128->300
// (150K) 2.6 against 2.9, but 2x256->256 (128K) 5.2 against 3.3; with AVX2
// alone (oneDNN capped likewise) the two are level from 64K to 128K. Inside
// a model, where other layers' weights evict this one between calls, the
// streamed loops' prefetching counts: seq2seq's 2x128->300 output layer
// took 6.9 us a call streamed, 9.2 in the AVX2 loops before and about 11 on
// oneDNN's matmul (per-node minima).
constexpr int64_t kStreamedMaxMultiplyAdds = 128 * 1024;

// The rows that are not all zeros (+0 or -0) among `rows` rows of `k` values,
// into `live`; false as soon as there are more than `max_live` of them. A
// row of data usually stops the scan at its first value.
bool NonZeroRows(const float* src, int64_t rows, int64_t k, int64_t max_live,
                 std::vector<int64_t>& live) {
  live.clear();
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = src + r * k;
    if (std::any_of(row, row + k, [](float v) { return v != 0.0f; })) {
      if (static_cast<int64_t>(live.size()) == max_live) return false;
      live.push_back(r);
    }
  }
  return true;
}

// Gathered rows are rounded up to a multiple of this (the extra rows zero),
// so that an input shape needs at most rows / 16 plans however its zero rows
// fall.
constexpr int64_t kGatheredRowsStep = 16;

class LinearKernel {
 public:
  explicit LinearKernel(LinearParams params)
      : params_(std::move(params)),
        linear_(params_.weight, params_.bias),
        finite_weight_(params_.weight.isfinite().all().item<bool>()) {}

  void operator()(NodeIO& io) {
    const at::Tensor& input = TensorArg(io, 0);
    const int64_t k = linear_.in_features();
    if (input.scalar_type() != at::kFloat || input.dim() == 0 || !input.is_cpu() ||
        input.size(-1) != k || input.numel() == 0 || input.is_neg() || input.is_conj()) {
      io.Output(0) = Reference(input);
      return;
    }
    const at::Tensor src = input.contiguous();
    c10::SmallVector<int64_t, 4> out_sizes(input.sizes().begin(), input.sizes().end() - 1);
    out_sizes.push_back(linear_.out_features());
    at::Tensor& out = ContiguousOutput(io, 0, at::kFloat, out_sizes);
    const int64_t rows = src.numel() / k;
    const int64_t weights = params_.weight.numel();
    if ((rows * weights <= kStreamedMaxMultiplyAdds || ops::StreamedLinear::Pays(rows, weights)) &&
        ops::StreamedLinear::Available()) {
      std::call_once(streamed_once_, [&] {
        streamed_.emplace(params_.weight.data_ptr<float>(),
                          params_.bias.defined() ? params_.bias.data_ptr<float>() : nullptr,
                          linear_.out_features(), k);
      });
      streamed_->Run(src.data_ptr<float>(), rows, out.data_ptr<float>());
    } else if (!RunWithoutZeroRows(src.data_ptr<float>(), rows, out.data_ptr<float>())) {
      linear_.Run(src.data_ptr<float>(), rows, out.data_ptr<float>());
    }
    onednn::ApplyActivation(params_, out);
  }

 private:
  // The product (before the activation) of the non-zero rows of `src`,
  // gathered into this thread's buffers, and the bias (or zeros) in the zero
  // rows; false, having done nothing, where too few rows are zero to pay.
  bool RunWithoutZeroRows(const float* src, int64_t rows, float* out) {
    if (!finite_weight_) return false;
    const int64_t k = linear_.in_features(), n = linear_.out_features();
    // At most three quarters of the rows multiplied, counted in whole steps.
    const int64_t max_gathered = (rows - rows / 4) / kGatheredRowsStep * kGatheredRowsStep;
    thread_local std::vector<int64_t> live;
    if (!NonZeroRows(src, rows, k, max_gathered, live)) return false;
    const int64_t live_rows = static_cast<int64_t>(live.size());
    const int64_t gathered =
        (live_rows + kGatheredRowsStep - 1) / kGatheredRowsStep * kGatheredRowsStep;
    auto* gathered_src =
        static_cast<float*>(onednn::ThreadScratchpad(gathered * k * sizeof(float), 1));
    auto* gathered_out =
        static_cast<float*>(onednn::ThreadScratchpad(gathered * n * sizeof(float), 2));
    for (int64_t i = 0; i < live_rows; ++i) {
      std::memcpy(gathered_src + i * k, src + live[i] * k, k * sizeof(float));
    }
    std::fill(gathered_src + live_rows * k, gathered_src + gathered * k, 0.0f);
    if (gathered > 0) linear_.Run(gathered_src, gathered, gathered_out);
    const float* bias = params_.bias.defined() ? params_.bias.data_ptr<float>() : nullptr;
    int64_t next = 0;  // index into live
    for (int64_t r = 0; r < rows; ++r) {
      float* row = out + r * n;
      if (next < live_rows && live[next] == r) {
        std::memcpy(row, gathered_out + next * n, n * sizeof(float));
        ++next;
      } else if (bias != nullptr) {
        std::memcpy(row, bias, n * sizeof(float));
      } else {
        std::fill(row, row + n, 0.0f);
      }
    }
    return true;
  }

  at::Tensor Reference(const at::Tensor& input) const {
    return ops::LinearFusedReference(
        input, params_.weight,
        params_.bias.defined() ? c10::optional<at::Tensor>(params_.bias) : c10::nullopt,
        params_.activation);
  }

  const LinearParams params_;
  onednn::PackedLinear linear_;
  const bool finite_weight_;  // zero rows give the bias alone
  std::once_flag streamed_once_;
  std::optional<ops::StreamedLinear> streamed_;  // made at the first product it takes
};

KernelOffer MakeLinearKernel(const torch::jit::Node* node) {
  std::optional<LinearParams> params = onednn::ReadFrozenParams(node, 2);
  if (!params || params->weight.numel() == 0) return Decline();
  auto kernel = std::make_shared<LinearKernel>(*std::move(params));
  return [kernel](NodeIO& io) { (*kernel)(io); };
}

}  // namespace

void RegisterOnednnLinearKernels(KernelRegistry& registry) {
  registry.Add({KernelOp::Overload("static_runtime::linear_fused", ""), NodeKind::kOutVariant,
                MakeLinearKernel, ops::LinearFusedErrorBound});
}

}  // namespace static_runtime
