// argmax and argmin without ATen's reduction machinery, for the small
// tensors (a decoder's [batch, vocabulary] scores) where setting that
// machinery up costs more than the scan.
//
// The indices are ATen's: along each reduced line, the first NaN if there
// is one, else the first index of the maximum (minimum); equal values tie,
// so -0 and +0 do. Any scanning order gives these indices, so they are the
// same bits as ATen's at any number of threads.
#ifndef STATIC_RUNTIME_OPS_REDUCTION_ARG_EXTREMUM_H_
#define STATIC_RUNTIME_OPS_REDUCTION_ARG_EXTREMUM_H_

#include <cstdint>

#include "ATen/core/Tensor.h"
#include "c10/util/Optional.h"

namespace static_runtime {
namespace ops {

// Up to this many elements the scan runs here; beyond them ATen's kernel,
// which splits the work over threads, is taken.
constexpr int64_t kArgExtremumMaxElements = 32768;

// Whether ArgExtremumOut serves `self`: contiguous, float, double, int64,
// int32 or uint8, 1 to kArgExtremumMaxElements elements, at least one
// dimension. (`dim` is checked by the caller's ATen fallback: a dim out of
// range is not served.)
bool ArgExtremumServes(const at::Tensor& self, c10::optional<int64_t> dim);

// out (int64, resized: self's sizes without `dim`, or with it as 1 if
// `keepdim`; no dim: all of self, a scalar or all ones) = the index of the
// maximum (`is_max`) or minimum along `dim`. Contract:
// ArgExtremumServes(self, dim).
void ArgExtremumOut(const at::Tensor& self, c10::optional<int64_t> dim, bool keepdim, bool is_max,
                    at::Tensor& out);

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_REDUCTION_ARG_EXTREMUM_H_
