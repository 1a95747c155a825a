#include "ops/reduction/out_variant_specs.h"

#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "ATen/ATen.h"
#include "ops/core/out_variant_spec.h"

namespace static_runtime {
namespace testing {
namespace specs {

std::map<std::string, Spec> ReductionOutVariantSpecs() {
  std::map<std::string, Spec> specs;
  specs["aten::sum."] = Unary(kAll, [](const Call&) -> Inputs { return {c10::IValue()}; });
  specs["aten::sum.dim_IntList"] = OverDims(kAll, [](const Call& c, int64_t rank) -> Inputs {
    return {c10::List<int64_t>(SomeDims(c, rank)), c.draw.Bool(), c10::IValue()};
  });
  // With no dtype, or a float one (the sum then runs in it).
  const auto mean_dtype = [](const Call& c) {
    return c.draw.Bool() ? c10::IValue() : c10::IValue(c.draw.Bool() ? at::kFloat : at::kDouble);
  };
  specs["aten::mean.dim"] = OverDims(kFloats, [=](const Call& c, int64_t rank) -> Inputs {
    return {c10::List<int64_t>(SomeDims(c, rank)), c.draw.Bool(), mean_dtype(c)};
  });
  specs["aten::prod.dim_int"] = OverDim(kNumbers, /*dtype_arg=*/true);
  specs["aten::cumsum."] = OverDims(kAll, [](const Call& c, int64_t rank) -> Inputs {
    return {c.Dim(rank), c10::IValue()};
  });
  specs["aten::cumprod."] = OverDims(kNumbers, [](const Call& c, int64_t rank) -> Inputs {
    return {c.Dim(rank), c10::IValue()};
  });
  for (const char* name : {"aten::amax.", "aten::amin."}) {
    specs[name] = OverDims(
        kNumbers,
        [](const Call& c, int64_t rank) -> Inputs {
          return {c10::List<int64_t>(SomeDims(c, rank)), c.draw.Bool()};
        },
        /*non_empty=*/true);
  }
  specs["aten::logsumexp."] = OverDims(kFloats, [](const Call& c, int64_t rank) -> Inputs {
    return {c10::List<int64_t>(SomeDims(c, rank)), c.draw.Bool()};
  });
  specs["aten::mean."] = {[=](const Call& c) -> Inputs {
    return {c.Tensor(c.Shape(c.Rank(0, 3)), kFloats), mean_dtype(c)};
  }};
  for (const char* name : {"aten::max.", "aten::min."}) {
    specs[name] = {
        [](const Call& c) -> Inputs { return {c.Tensor(c.NonEmptyShape(c.Rank(0, 3)), kAll)}; }};
  }
  specs["aten::max.dim"] = OverDim(kNumbers, false, /*non_empty=*/true);
  specs["aten::min.dim"] = OverDim(kNumbers, false, /*non_empty=*/true);
  // Sometimes ties (values rounded to -1, 0, 1, with -0 and +0) and NaNs:
  // the first extreme and the first NaN win.
  for (const char* name : {"aten::argmax.", "aten::argmin."}) {
    specs[name] = {[](const Call& c) -> Inputs {
      const int64_t rank = c.Rank(1, 3);
      at::Tensor x = c.Tensor(c.NonEmptyShape(rank), kNumbers);
      if (at::isFloatingType(x.scalar_type())) {
        if (c.draw.Bool()) x = x.clamp(-1, 1).round() * (c.draw.Bool() ? 1 : -1);
        if (c.draw.Bool()) {
          std::vector<at::indexing::TensorIndex> at_random;
          for (int64_t size : x.sizes()) at_random.emplace_back(c.draw.Int(0, size - 1));
          x.index_put_(at_random, std::nan(""));
        }
      }
      return {x, c.draw.Bool() ? c10::IValue() : c10::IValue(c.Dim(rank)), c.draw.Bool()};
    }};
  }
  specs["aten::norm.ScalarOpt_dim"] = OverDims(kFloats, [](const Call& c, int64_t rank) -> Inputs {
    const int64_t p = c.draw.Int(0, 2);
    return {p == 0 ? c10::IValue() : c10::IValue(p), c10::List<int64_t>(SomeDims(c, rank)),
            c.draw.Bool()};
  });
  for (const char* name : {"aten::var.dim", "aten::std.dim"}) {
    specs[name] = OverDims(kFloats, [](const Call& c, int64_t rank) -> Inputs {
      return {c10::List<int64_t>(SomeDims(c, rank)), c.draw.Bool(), c.draw.Bool()};
    });
  }
  specs["aten::any.dim"] = OverDim(kAll, false);
  specs["aten::all.dim"] = OverDim(kAll, false);
  specs["aten::any."] = Unary(kAll);
  specs["aten::all."] = Unary(kAll);
  return specs;
}

}  // namespace specs
}  // namespace testing
}  // namespace static_runtime
