// When a kernel may call ATen's CPU implementation of an op directly instead
// of going through the dispatcher: inside c10::InferenceMode, on an
// inference tensor (no autograd metadata, no version counter) that is a plain
// strided CPU tensor. For such a tensor the dispatcher itself would skip the
// Autograd and ADInplaceOrView keys and land on the same CPU kernel, so the
// direct call computes the same thing, minus the dispatch. Any other tensor
// (a caller's input, a weight, a quantized or sparse tensor, or any tensor
// when inference mode is off) goes through the dispatcher, which keeps
// autograd, view tracking and version counters intact.
#ifndef STATIC_RUNTIME_OPS_DIRECT_CALL_H_
#define STATIC_RUNTIME_OPS_DIRECT_CALL_H_

#include "ATen/ATen.h"
#include "ATen/autocast_mode.h"
#include "c10/core/InferenceMode.h"

namespace static_runtime {

// A dense strided CPU tensor without dispatch keys of its own beyond
// autograd's (no quantized, nested, MKL-DNN, negative or conjugate view).
inline bool PlainCpuTensor(const at::Tensor& tensor) {
  return tensor.defined() && tensor.device().is_cpu() && tensor.layout() == at::kStrided &&
         !tensor.is_quantized() && !tensor.is_nested() && !tensor.is_mkldnn() && !tensor.is_neg() &&
         !tensor.is_conj();
}

inline bool DirectCallOk(const at::Tensor& tensor) {
  return tensor.is_inference() && c10::InferenceMode::is_enabled() && PlainCpuTensor(tensor);
}

// Whether the dispatcher, for plain CPU tensors, would go straight to ATen's
// CPU kernels: in inference mode (no autograd to record) without CPU
// autocast.
inline bool DispatchReachesCpuKernels() {
  return c10::InferenceMode::is_enabled() && !at::autocast::is_cpu_enabled();
}

// Whether ATen's at::cpu:: functional form of an op (the CPU kernel
// allocating its result) computes what the dispatched op would for these
// tensor arguments. Used for the outputs an out variant cannot reuse (graph
// outputs, first runs); it saves the dispatcher's lookup.
template <typename... Tensors>
inline bool CpuFunctionalOk(const Tensors&... tensors) {
  return DispatchReachesCpuKernels() && (PlainCpuTensor(tensors) && ...);
}

// `at::native::fn(self, args...)` when DirectCallOk(self), else the
// dispatched method `self.fn(args...)`.
#define SR_DIRECT_OR_DISPATCH(self, fn, ...)                           \
  (::static_runtime::DirectCallOk(self) ? ::at::native::fn(self, ##__VA_ARGS__) \
                                        : self.fn(__VA_ARGS__))

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_DIRECT_CALL_H_
