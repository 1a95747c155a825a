// The loops of ops::Winograd3x3, compiled for AVX2 and FMA
// (winograd_3x3_avx2.cc): entered only on CPUs that have both.
#ifndef STATIC_RUNTIME_OPS_CONV_WINOGRAD_3X3_AVX2_H_
#define STATIC_RUNTIME_OPS_CONV_WINOGRAD_3X3_AVX2_H_

#include "ops/conv/winograd_3x3.h"

namespace static_runtime {
namespace ops {

void RunWinograd3x3Avx2(const Winograd3x3::Weights& weights, const Winograd3x3Shape& shape,
                        const float* x, float* y);

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_CONV_WINOGRAD_3X3_AVX2_H_
