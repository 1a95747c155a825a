// The out-variant kernel of static_runtime::linear_fused (passes/prepack_weights.h):
// a oneDNN matmul with the frozen weight pre-packed (ops/onednn_matmul.h);
// the activation runs in place on the result (onednn::ApplyActivation). Products of at
// most 128K multiply-adds run ops::SmallLinear instead (a relu fused in).
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
// Numerics: oneDNN sums the K products in another order than BLAS; the
// kernel declares the bound in ops/error_bounds.h.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ATen/ATen.h"
#include "c10/util/SmallVector.h"
#include "ir/operators/operators.h"
#include "ops/error_bounds.h"
#include "ops/onednn.h"
#include "ops/onednn_matmul.h"
#include "ops/out_variant.h"
#include "ops/small_linear.h"

namespace static_runtime {
namespace {

// The weight is [N, K], the bias [N] or undefined.
using LinearParams = onednn::FrozenParams;

// Products of at most this many multiply-adds run ops::SmallLinear, where
// oneDNN's fixed cost per call (about 1 us) dominates: one thread, 16x64 by
// 64x32 0.83 us against oneDNN's 1.72, 16x24 by 24x48 0.57 against 1.47; at
// 64x64 by 64x64 (256K) both take 5.3-5.9 us.
constexpr int64_t kSmallLinearMaxMultiplyAdds = 128 * 1024;

class LinearKernel {
 public:
  explicit LinearKernel(LinearParams params)
      : params_(std::move(params)),
        linear_(params_.weight, params_.bias),
        fused_relu_(params_.activation == "relu") {
    if (ops::SmallLinear::Available() && params_.weight.numel() <= kSmallLinearMaxMultiplyAdds) {
      small_.emplace(params_.weight.data_ptr<float>(),
                     params_.bias.defined() ? params_.bias.data_ptr<float>() : nullptr,
                     linear_.out_features(), linear_.in_features());
    }
  }

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
    if (small_ && rows * params_.weight.numel() <= kSmallLinearMaxMultiplyAdds) {
      small_->Run(src.data_ptr<float>(), rows, out.data_ptr<float>(), fused_relu_);
      if (fused_relu_) return;
    } else {
      linear_.Run(src.data_ptr<float>(), rows, out.data_ptr<float>());
    }
    onednn::ApplyActivation(params_, out);
  }

 private:
  at::Tensor Reference(const at::Tensor& input) const {
    return ops::LinearFusedReference(
        input, params_.weight,
        params_.bias.defined() ? c10::optional<at::Tensor>(params_.bias) : c10::nullopt,
        params_.activation, params_.min_value, params_.max_value);
  }

  const LinearParams params_;
  onednn::PackedLinear linear_;
  const bool fused_relu_;                  // SmallLinear applies a relu itself
  std::optional<ops::SmallLinear> small_;  // for small weights, on CPUs with AVX2 and FMA
};

KernelOffer MakeLinearKernel(const torch::jit::Node* node) {
  std::optional<LinearParams> params = onednn::ReadFrozenParams(node, 2);
  if (!params || params->weight.numel() == 0) return Decline();
  auto kernel = std::make_shared<LinearKernel>(*std::move(params));
  return [kernel](NodeIO& io) { (*kernel)(io); };
}

const bool kRegistered = [] {
  ops::EnsureOperatorsRegistered();
  KernelRegistry::Global().RegisterOverload("static_runtime::linear_fused", "",
                                            NodeKind::kOutVariant, MakeLinearKernel,
                                            ops::LinearFusedErrorBound);
  return true;
}();

}  // namespace
}  // namespace static_runtime
