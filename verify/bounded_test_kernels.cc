#include "verify/bounded_test_kernels.h"

#include <cmath>
#include <limits>

#include "ATen/ATen.h"

namespace static_runtime {
namespace {

at::Tensor OnePartInAMillion(const std::vector<c10::IValue>& /*inputs*/, const at::Tensor& exact) {
  return exact.abs() * 1e-6;
}

}  // namespace

void RegisterBoundedTestKernels(KernelRegistry& registry) {
  registry.Add({KernelOp::Overload("aten::logit", ""), NodeKind::kNative,
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
                OnePartInAMillion});
  registry.Add({KernelOp::Overload("aten::rad2deg", ""), NodeKind::kNative,
                [](const torch::jit::Node* /*node*/) -> KernelOffer {
                  return [](NodeIO& io) {
                    io.Output(0) = at::rad2deg(io.Input(0).toTensor());
                    io.Input(0).toTensor().zero_();
                  };
                },
                OnePartInAMillion});
}

}  // namespace static_runtime
