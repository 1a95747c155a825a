// The out-variant kernels' property specs, shared by the families' spec
// lists (ops/<family>/out_variant_specs.h) and their one driver
// (//ops:out_variant_property_test): what a case draws (Call), what a spec
// says about a kernel (Spec) and the builders of common argument lists.
#ifndef STATIC_RUNTIME_OPS_CORE_OUT_VARIANT_SPEC_H_
#define STATIC_RUNTIME_OPS_CORE_OUT_VARIANT_SPEC_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ATen/ATen.h"
#include "ATen/core/ivalue.h"
#include "ops/core/out_variant_test_support.h"

namespace static_runtime {
namespace testing {
namespace specs {

using Inputs = std::vector<c10::IValue>;
using DtypeList = std::vector<at::ScalarType>;

inline const DtypeList kFloats = {at::kFloat, at::kDouble};
inline const DtypeList kNumbers = {at::kFloat, at::kDouble, at::kLong};
inline const DtypeList kAll = {at::kFloat, at::kDouble, at::kLong, at::kBool};

// What a case draws once (so the node's structure is fixed) and per call.
struct Call {
  Draw& draw;
  int64_t structure;  // drawn once per case, in [0, 1000)
  int64_t scale;      // per call: 0 (dims may be 0), 1, 2, 3
  std::string overload;

  int64_t Rank(int64_t low, int64_t high) const { return low + structure % (high - low + 1); }
  std::vector<int64_t> Shape(int64_t rank) const {
    return draw.Shape(rank, scale == 0 ? 0 : 1, 1 + 2 * scale);
  }
  std::vector<int64_t> NonEmptyShape(int64_t rank) const {
    return draw.Shape(rank, 1, 1 + 2 * scale);
  }
  at::Tensor Tensor(at::IntArrayRef shape, const DtypeList& dtypes) const {
    return draw.Tensor(shape, draw.OneOf(dtypes));
  }
  int64_t Dim(int64_t rank) const { return rank == 0 ? 0 : draw.Int(-rank, rank - 1); }
  c10::IValue Scalar(const DtypeList& dtypes) const {
    const at::ScalarType dtype = draw.OneOf(dtypes);
    if (dtype == at::kBool) return draw.Bool();
    if (dtype == at::kLong) {
      return draw.Int(0, 9) == 0 ? draw.OneOf<int64_t>({16777217, -16777219}) : draw.Int(-4, 4);
    }
    // Sometimes a number float32 rounds (the kernel must round it as ATen does).
    if (draw.Int(0, 4) == 0) return draw.OneOf<double>({0.1, -1.0 / 3, 1e-40, 16777217.0});
    return draw.Int(-8, 8) / 4.0;
  }
};

struct Spec {
  std::function<Inputs(const Call&)> inputs;
  std::vector<std::string> overloads = {""};  // for node-kind registrations
  // Outputs of a vararg node with these inputs.
  std::function<size_t(const Inputs&)> num_outputs = [](const Inputs&) { return 1; };
  // How many outputs the kernel computes (the rest are unused by the node's
  // graph, or the kernel would not claim it); -1: all.
  int compared_outputs = -1;
  bool may_alias = false;  // the result may be the input itself
  // false: the result's values are unspecified (empty_like), so only its
  // dtype, sizes and strides are compared.
  bool compares_values = true;
  // For kernels that write into their output only for some inputs: which.
  std::function<bool(const Inputs&)> writes_into_output = [](const Inputs&) { return true; };
};

Spec Unary(DtypeList dtypes, std::function<Inputs(const Call&)> extra = nullptr);

Spec Binary(DtypeList dtypes, std::function<Inputs(const Call&)> extra = nullptr);

// For a float tensor, sometimes one element made the number (as its dtype
// rounds it: a tie for comparisons), an infinity or NaN.
void SometimesSpecialElement(const Call& c, const at::Tensor& tensor, const c10::IValue& number);

Spec WithScalar(DtypeList dtypes, DtypeList scalar_dtypes,
                std::function<Inputs(const Call&)> extra = nullptr);

c10::IValue Alpha(const Call& c);

// (self, dim, keepdim[, dtype]) reductions over one dim.
Spec OverDim(DtypeList dtypes, bool dtype_arg, bool non_empty = false);

// A list of distinct dims of a tensor of `rank` (non-empty when rank > 0).
std::vector<int64_t> SomeDims(const Call& c, int64_t rank);

Spec OverDims(DtypeList dtypes, std::function<Inputs(const Call&, int64_t rank)> tail,
              bool non_empty = false);

}  // namespace specs
}  // namespace testing
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_CORE_OUT_VARIANT_SPEC_H_
