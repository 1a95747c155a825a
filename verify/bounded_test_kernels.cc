// Kernels with declared error bounds, for tests of the harness and of `sr
// verify` only (link them into a test; nothing includes them). Both ops
// otherwise run as fallbacks; each kernel's bound is one part in 10^6 of the
// exact result.
// - aten::logit: ATen's result, its element 1 raised by one ulp (within its
//   bound): the rounding of a kernel with a declared bound.
// - aten::rad2deg: ATen's exact result, but it then zeroes its input, which
//   its schema says it only reads: what a memory plan that recycles a value
//   while it is still in use does to the nodes after it.
#include <cmath>
#include <limits>

#include "ATen/ATen.h"
#include "ops/core/registry.h"

namespace static_runtime {
namespace {

at::Tensor OnePartInAMillion(const std::vector<c10::IValue>& /*inputs*/, const at::Tensor& exact) {
  return exact.abs() * 1e-6;
}

const bool kRegistered = [] {
  KernelRegistry::Global().RegisterOverload(
      "aten::logit", "", NodeKind::kNative,
      [](const torch::jit::Node* /*node*/) -> KernelOffer {
        return [](NodeIO& io) {
          at::Tensor result = at::logit(io.Input(0).toTensor());
          if (result.numel() > 1 && result.scalar_type() == at::kFloat) {
            float* second = result.data_ptr<float>() + 1;
            *second = std::nextafter(*second, std::numeric_limits<float>::infinity());
          }
          io.Output(0) = result;
        };
      },
      OnePartInAMillion);
  KernelRegistry::Global().RegisterOverload(
      "aten::rad2deg", "", NodeKind::kNative,
      [](const torch::jit::Node* /*node*/) -> KernelOffer {
        return [](NodeIO& io) {
          io.Output(0) = at::rad2deg(io.Input(0).toTensor());
          io.Input(0).toTensor().zero_();
        };
      },
      OnePartInAMillion);
  return true;
}();

}  // namespace
}  // namespace static_runtime
