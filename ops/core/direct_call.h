// When a kernel may skip the dispatcher. Two levels: DirectCallOk (ATen's
// native implementation, below every dispatch key, for views and in-place
// ops) and CpuKernelsServe (ATen's CPU kernels, below the autograd keys, for
// functional and out forms); PlainCpuTensor is the tensor property both
// need. DirectCallOk: inside c10::InferenceMode, on an
// inference tensor (no autograd metadata, no version counter) that is a plain
// strided CPU tensor. For such a tensor the dispatcher itself would skip the
// Autograd and ADInplaceOrView keys and land on the same CPU kernel, so the
// direct call computes the same thing, minus the dispatch. Any other tensor
// (a caller's input, a weight, a quantized or sparse tensor, or any tensor
// when inference mode is off) goes through the dispatcher, which keeps
// autograd, view tracking and version counters intact.
#ifndef STATIC_RUNTIME_OPS_CORE_DIRECT_CALL_H_
#define STATIC_RUNTIME_OPS_CORE_DIRECT_CALL_H_

#include "ATen/ATen.h"
#include "ATen/autocast_mode.h"
#include "c10/core/InferenceMode.h"
#include "ops/core/node_io.h"

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

namespace direct_call_internal {
inline bool PlainCpuArgument(const at::Tensor& tensor) { return PlainCpuTensor(tensor); }
// Every tensor input of the node, alone or in a list.
inline bool PlainCpuArgument(const NodeIO& io) {
  for (size_t i = 0; i < io.num_inputs(); ++i) {
    const c10::IValue& input = io.Input(i);
    if (input.isTensor()) {
      if (!PlainCpuTensor(input.toTensor())) return false;
    } else if (input.isTensorList()) {
      for (const c10::IValue& element : input.toListRef()) {
        if (!PlainCpuTensor(element.toTensor())) return false;
      }
    }
  }
  return true;
}
}  // namespace direct_call_internal

// Whether ATen's CPU kernels (at::cpu::fn, or an op's out form below the
// autograd keys) compute what the dispatched op would for these arguments
// (tensors, or a node's every tensor input): in inference mode (no autograd
// to record), without CPU autocast, on plain CPU tensors. For the outputs an
// out variant cannot reuse (graph outputs, first runs) and functional forms;
// it saves the dispatcher's lookup.
template <typename... Arguments>
inline bool CpuKernelsServe(const Arguments&... arguments) {
  return c10::InferenceMode::is_enabled() && !at::autocast::is_cpu_enabled() &&
         (direct_call_internal::PlainCpuArgument(arguments) && ...);
}

// `at::native::fn(self, args...)` when DirectCallOk(self), else the
// dispatched method `self.fn(args...)`.
#define SR_DIRECT_OR_DISPATCH(self, fn, ...)                                    \
  (::static_runtime::DirectCallOk(self) ? ::at::native::fn(self, ##__VA_ARGS__) \
                                        : self.fn(__VA_ARGS__))

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_CORE_DIRECT_CALL_H_
