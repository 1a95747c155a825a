#include "ops/core/out_variant_spec.h"

#include <cmath>
#include <utility>

namespace static_runtime {
namespace testing {
namespace specs {

Spec Unary(DtypeList dtypes, std::function<Inputs(const Call&)> extra) {
  return {[dtypes, extra](const Call& c) {
    Inputs inputs = {c.Tensor(c.Shape(c.Rank(0, 3)), dtypes)};
    if (extra) {
      for (c10::IValue& value : extra(c)) inputs.push_back(std::move(value));
    }
    return inputs;
  }};
}

Spec Binary(DtypeList dtypes, std::function<Inputs(const Call&)> extra) {
  return {[dtypes, extra](const Call& c) {
    const std::vector<int64_t> shape = c.Shape(c.Rank(0, 3));
    Inputs inputs = {c.Tensor(shape, dtypes), c.Tensor(c.draw.BroadcastableTo(shape), dtypes)};
    if (c.draw.Bool()) std::swap(inputs[0], inputs[1]);
    if (extra) {
      for (c10::IValue& value : extra(c)) inputs.push_back(std::move(value));
    }
    return inputs;
  }};
}

// For a float tensor, sometimes one element made the number (as its dtype
// rounds it: a tie for comparisons), an infinity or NaN.
void SometimesSpecialElement(const Call& c, const at::Tensor& tensor, const c10::IValue& number) {
  if (!tensor.is_floating_point() || tensor.numel() == 0 || c.draw.Bool()) return;
  at::Tensor element = tensor;
  while (element.dim() > 0) element = element.select(0, c.draw.Int(0, element.size(0) - 1));
  element.fill_(c.draw.OneOf<double>({number.toScalar().toDouble(), INFINITY, NAN}));
}

Spec WithScalar(DtypeList dtypes, DtypeList scalar_dtypes,
                std::function<Inputs(const Call&)> extra) {
  return {[dtypes, scalar_dtypes, extra](const Call& c) {
    Inputs inputs = {c.Tensor(c.Shape(c.Rank(0, 3)), dtypes), c.Scalar(scalar_dtypes)};
    SometimesSpecialElement(c, inputs[0].toTensor(), inputs[1]);
    if (extra) {
      for (c10::IValue& value : extra(c)) inputs.push_back(std::move(value));
    }
    return inputs;
  }};
}

c10::IValue Alpha(const Call& c) { return c.Scalar({at::kLong}); }

// (self, dim, keepdim[, dtype]) reductions over one dim.
Spec OverDim(DtypeList dtypes, bool dtype_arg, bool non_empty) {
  return {[dtypes, dtype_arg, non_empty](const Call& c) {
    const int64_t rank = c.Rank(1, 3);
    Inputs inputs = {c.Tensor(non_empty ? c.NonEmptyShape(rank) : c.Shape(rank), dtypes),
                     c.Dim(rank), c.draw.Bool()};
    if (dtype_arg) inputs.emplace_back();
    return inputs;
  }};
}

// A list of distinct dims of a tensor of `rank` (non-empty when rank > 0).
std::vector<int64_t> SomeDims(const Call& c, int64_t rank) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < rank; ++d) {
    if (c.draw.Bool()) dims.push_back(d - (c.draw.Bool() ? rank : 0));
  }
  if (dims.empty() && rank > 0) dims.push_back(c.Dim(rank));
  return dims;
}

Spec OverDims(DtypeList dtypes, std::function<Inputs(const Call&, int64_t rank)> tail,
              bool non_empty) {
  return {[dtypes, tail, non_empty](const Call& c) {
    const int64_t rank = c.Rank(1, 3);
    Inputs inputs = {c.Tensor(non_empty ? c.NonEmptyShape(rank) : c.Shape(rank), dtypes)};
    for (c10::IValue& value : tail(c, rank)) inputs.push_back(std::move(value));
    return inputs;
  }};
}

}  // namespace specs
}  // namespace testing
}  // namespace static_runtime
