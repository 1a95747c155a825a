// The AVX-512 body of ops/nn/softmax_rows.h, compiled with AVX-512 flags in
// a translation unit of its own (no ATen headers, so no inline function of
// theirs is emitted with AVX-512 instructions for other code to link).
#ifndef STATIC_RUNTIME_OPS_NN_SOFTMAX_ROWS_AVX512_H_
#define STATIC_RUNTIME_OPS_NN_SOFTMAX_ROWS_AVX512_H_

#include <cstdint>

namespace static_runtime {
namespace ops {

// ATen's AVX2 softmax (8-lane sum order) on rows [first, last), the exps on
// 16 lanes. Call only on CPUs with AVX-512 F, DQ, BW and VL.
void SoftmaxRowsAvx512InAvx2Order(const float* in, float* out, int64_t first, int64_t last,
                                  int64_t n);

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_NN_SOFTMAX_ROWS_AVX512_H_
