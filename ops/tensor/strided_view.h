// Views made here instead of by ATen: the sizes, strides and storage offset
// ATen's view op would give, on a new tensor sharing `self`'s storage, in
// about 50 ns instead of 150-900 ns (no dispatch, and for a caller's tensor
// no autograd view record). The view is an inference tensor (no autograd
// metadata, no version counter) so it is only made when that cannot be
// told apart from ATen's view (StridedViewOk): inside c10::InferenceMode, on
// a plain CPU tensor without names, that is an inference tensor itself
// (ATen's view of it is one too) or whose view the run only reads (the
// caller never sees it: ir/read_only_uses.h).
//
// Each op gives nullopt for arguments ATen rejects and for the cases left
// to ATen (then the kernel calls ATen, which gives its result or its
// error), so the errors stay ATen's.
#ifndef STATIC_RUNTIME_OPS_TENSOR_STRIDED_VIEW_H_
#define STATIC_RUNTIME_OPS_TENSOR_STRIDED_VIEW_H_

#include <cstdint>
#include <optional>

#include "ATen/ATen.h"

namespace static_runtime {

bool StridedViewOk(const at::Tensor& self, bool only_read_within_run);

std::optional<at::Tensor> SliceView(const at::Tensor& self, int64_t dim,
                                    c10::optional<int64_t> start, c10::optional<int64_t> end,
                                    int64_t step);
std::optional<at::Tensor> NarrowView(const at::Tensor& self, int64_t dim, int64_t start,
                                     int64_t length);
std::optional<at::Tensor> SelectView(const at::Tensor& self, int64_t dim, int64_t index);
std::optional<at::Tensor> TransposeView(const at::Tensor& self, int64_t dim0, int64_t dim1);
std::optional<at::Tensor> TView(const at::Tensor& self);  // aten::t
std::optional<at::Tensor> PermuteView(const at::Tensor& self, at::IntArrayRef dims);
std::optional<at::Tensor> UnsqueezeView(const at::Tensor& self, int64_t dim);
std::optional<at::Tensor> SqueezeView(const at::Tensor& self);
std::optional<at::Tensor> SqueezeDimView(const at::Tensor& self, int64_t dim);
std::optional<at::Tensor> ExpandView(const at::Tensor& self, at::IntArrayRef size);
// view(size), and reshape(size) when its result is a view (nullopt when
// the strides do not allow one: reshape then copies, view fails).
std::optional<at::Tensor> ReshapeView(const at::Tensor& self, at::IntArrayRef size);
// flatten(start, end): `self` itself when start == end, as ATen.
std::optional<at::Tensor> FlattenView(const at::Tensor& self, int64_t start, int64_t end);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_TENSOR_STRIDED_VIEW_H_
