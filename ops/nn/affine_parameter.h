// What the norms' kernels (group_norm, instance_norm) ask of a weight or a
// bias before they hand it to ATen's CPU kernels, which read it as C
// contiguous elements of the input's dtype.
#ifndef STATIC_RUNTIME_OPS_NN_AFFINE_PARAMETER_H_
#define STATIC_RUNTIME_OPS_NN_AFFINE_PARAMETER_H_

#include <cstdint>

#include "ATen/ATen.h"
#include "ops/core/out_variant.h"

namespace static_runtime {

// `param` is absent, or a contiguous 1-D tensor of `channels` elements of
// `dtype` on the CPU.
inline bool PlainAffineParameter(const c10::optional<at::Tensor>& param, int64_t channels,
                                 at::ScalarType dtype) {
  return !param || !param->defined() ||
         (param->scalar_type() == dtype && param->dim() == 1 && param->size(0) == channels &&
          param->is_contiguous() && PlainCpuTensor(*param));
}

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_NN_AFFINE_PARAMETER_H_
