// silu and gelu (approximate 'none') in place on float32 buffers, for the
// epilogues of kernels that declare an error bound (conv2d_fused,
// linear_fused, transformer_encoder_layer): 1.5x faster than ATen's
// kernels on AVX2, which spend most of their time in Sleef's exp (silu) or
// oneDNN's erf (gelu); on AVX-512 CPUs sixteen floats a vector (Debian's
// ATen stops at AVX2 for these).
//
// Contract: every finite result is within 4 eps32 (|exact| + |x|) of the
// exact activation of x; NaN stays NaN; silu(+inf) = +inf, silu(-inf) = NaN,
// gelu(+inf) = +inf, gelu(-inf) = NaN, as ATen gives them. ATen's own
// results are within the same distance (gelu's erf approximation is
// oneDNN's, with an absolute error of 1.5e-7), so the kernels' declared
// bounds (ops/core/error_bounds.h) hold for either; epilogue_activations_test
// checks both against float64.
#ifndef STATIC_RUNTIME_OPS_ACTIVATIONS_EPILOGUE_ACTIVATIONS_H_
#define STATIC_RUNTIME_OPS_ACTIVATIONS_EPILOGUE_ACTIVATIONS_H_

#include <cstdint>
#include <vector>

namespace static_runtime {
namespace ops {

// The widest loops this CPU runs (AVX-512, AVX2 with FMA, else scalar).
void SiluInPlace(float* data, int64_t count);
void GeluInPlace(float* data, int64_t count);

// One ISA's loops (epilogue_activations_impl.h), for the tests.
struct EpilogueActivationLoops {
  void (*silu)(float* data, int64_t count);
  void (*gelu)(float* data, int64_t count);
  const char* name;
};
// Every ISA's loops this CPU runs, the one SiluInPlace and GeluInPlace use
// first, then the scalar loops.
std::vector<EpilogueActivationLoops> EpilogueActivationCandidates();

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_ACTIVATIONS_EPILOGUE_ACTIVATIONS_H_
