#include "ops/elementwise/out_variant_specs.h"

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

namespace {

std::map<std::string, Spec> UnarySpecs() {
  std::map<std::string, Spec> specs;
  for (const char* name :
       {"exp",   "log",        "log1p", "log2", "log10",   "expm1", "exp2",       "sqrt",
        "rsqrt", "reciprocal", "erf",   "erfc", "sigmoid", "tanh",  "sin",        "cos",
        "tan",   "asin",       "acos",  "atan", "sinh",    "cosh",  "logical_not"}) {
    specs[absl::StrCat("aten::", name, ".")] = Unary(kAll);
  }
  for (const char* name : {"abs", "neg", "floor", "ceil", "round", "trunc", "relu"}) {
    specs[absl::StrCat("aten::", name, ".")] = Unary(kNumbers);
  }
  specs["aten::sign."] = Unary(kAll);
  for (const char* name : {"frac", "silu", "mish", "hardswish", "hardsigmoid"}) {
    specs[absl::StrCat("aten::", name, ".")] = Unary(kFloats);
  }
  specs["aten::bitwise_not."] = Unary({at::kLong, at::kBool});
  specs["aten::gelu."] =
      Unary(kFloats, [](const Call& c) -> Inputs { return {c.draw.Bool() ? "tanh" : "none"}; });
  specs["aten::logit."] = Unary(kFloats, [](const Call& c) -> Inputs {
    return {c.draw.Bool() ? c10::IValue() : c10::IValue(c.draw.Int(0, 3) / 10.0)};
  });
  specs["aten::nan_to_num."] = {[](const Call& c) -> Inputs {
    at::Tensor x = c.Tensor(c.Shape(c.Rank(0, 3)), kFloats);
    x = at::log(x);  // NaN for negatives, -inf for zeros
    auto maybe = [&]() { return c.draw.Bool() ? c10::IValue() : c10::IValue(c.Scalar(kFloats)); };
    return {x, maybe(), maybe(), maybe()};
  }};
  specs["aten::elu."] = Unary(kFloats, [](const Call& c) -> Inputs {
    return {c.Scalar(kFloats), c.Scalar(kFloats), c.Scalar(kFloats)};
  });
  specs["aten::leaky_relu."] =
      Unary(kFloats, [](const Call& c) -> Inputs { return {c.Scalar(kFloats)}; });
  specs["aten::hardtanh."] = Unary(kNumbers, [](const Call& c) -> Inputs {
    const int64_t low = c.draw.Int(-3, 0);
    return {low, low + c.draw.Int(0, 4)};
  });
  specs["aten::softplus."] = Unary(kFloats, [](const Call& c) -> Inputs {
    return {c.draw.Int(1, 3), c.draw.Int(1, 20)};
  });
  specs["aten::threshold."] = Unary(kNumbers, [](const Call& c) -> Inputs {
    return {c.Scalar({at::kLong}), c.Scalar({at::kLong})};
  });
  specs["aten::clamp."] = Unary(kNumbers, [](const Call& c) -> Inputs {
    auto bound = [&]() { return c.draw.Int(0, 2) == 0 ? c10::IValue() : c.Scalar(kNumbers); };
    c10::IValue low = bound();
    c10::IValue high = bound();
    if (low.isNone() && high.isNone()) low = 0;
    return {low, high};
  });
  specs["aten::clamp_min."] =
      Unary(kNumbers, [](const Call& c) -> Inputs { return {c.Scalar(kNumbers)}; });
  specs["aten::clamp_max."] =
      Unary(kNumbers, [](const Call& c) -> Inputs { return {c.Scalar(kNumbers)}; });
  for (const char* name : {"aten::tril.", "aten::triu."}) {
    specs[name] = {[](const Call& c) -> Inputs {
      return {c.Tensor(c.Shape(c.Rank(2, 3)), kAll), c.draw.Int(-2, 2)};
    }};
  }
  return specs;
}

std::map<std::string, Spec> BinarySpecs() {
  std::map<std::string, Spec> specs;
  for (const char* name : {"add", "sub", "rsub"}) {
    specs[absl::StrCat("aten::", name, ".Tensor")] =
        Binary(kNumbers, [](const Call& c) -> Inputs { return {Alpha(c)}; });
    specs[absl::StrCat("aten::", name, ".Scalar")] =
        WithScalar(kNumbers, kNumbers, [](const Call& c) -> Inputs { return {Alpha(c)}; });
  }
  specs["aten::mul.Tensor"] = Binary(kAll);
  specs["aten::mul.Scalar"] = WithScalar(kAll, kNumbers);
  specs["aten::div.Tensor"] = Binary(kNumbers);
  specs["aten::div.Scalar"] = WithScalar(kNumbers, kNumbers);
  auto mode = [](const Call& c) -> Inputs {
    const int64_t which = c.draw.Int(0, 2);
    return {which == 0 ? c10::IValue() : c10::IValue(which == 1 ? "trunc" : "floor")};
  };
  specs["aten::div.Tensor_mode"] = Binary(kNumbers, mode);
  specs["aten::div.Scalar_mode"] = WithScalar(kNumbers, kNumbers, mode);
  specs["aten::pow.Tensor_Tensor"] = Binary(kFloats);
  specs["aten::pow.Tensor_Scalar"] = WithScalar(kNumbers, {at::kLong});
  specs["aten::pow.Scalar"] = {[](const Call& c) -> Inputs {
    return {c.Scalar(kFloats), c.Tensor(c.Shape(c.Rank(0, 3)), kNumbers)};
  }};
  for (const char* name :
       {"aten::maximum.", "aten::minimum.", "aten::max.other", "aten::min.other"}) {
    specs[name] = Binary(kAll);
  }
  specs["aten::atan2."] = Binary(kFloats);
  for (const char* name : {"remainder", "fmod"}) {
    specs[absl::StrCat("aten::", name, ".Tensor")] = Binary(kNumbers);
    specs[absl::StrCat("aten::", name, ".Scalar")] = WithScalar(kNumbers, kFloats);
  }
  specs["aten::floor_divide."] = Binary(kNumbers);
  for (const char* name : {"eq", "ne", "lt", "le", "gt", "ge"}) {
    specs[absl::StrCat("aten::", name, ".Tensor")] = Binary(kAll);
    specs[absl::StrCat("aten::", name, ".Scalar")] = WithScalar(kAll, kNumbers);
  }
  for (const char* name : {"logical_and", "logical_or", "logical_xor"}) {
    specs[absl::StrCat("aten::", name, ".")] = Binary(kAll);
  }
  for (const char* name : {"__and__", "__or__", "__xor__"}) {
    specs[absl::StrCat("aten::", name, ".Tensor")] = Binary({at::kLong, at::kInt, at::kBool});
  }
  specs["aten::where.self"] = {[](const Call& c) -> Inputs {
    const std::vector<int64_t> shape = c.Shape(c.Rank(0, 3));
    return {c.Tensor(c.draw.BroadcastableTo(shape), {at::kBool}), c.Tensor(shape, kAll),
            c.Tensor(c.draw.BroadcastableTo(shape), kAll)};
  }};
  specs["aten::masked_fill.Scalar"] = {[](const Call& c) -> Inputs {
    const std::vector<int64_t> shape = c.Shape(c.Rank(0, 3));
    return {c.Tensor(shape, kNumbers), c.Tensor(c.draw.BroadcastableTo(shape), {at::kBool}),
            c.Scalar({at::kLong})};
  }};
  specs["aten::masked_fill.Tensor"] = {[](const Call& c) -> Inputs {
    const std::vector<int64_t> shape = c.Shape(c.Rank(0, 3));
    return {c.Tensor(shape, kFloats), c.Tensor(c.draw.BroadcastableTo(shape), {at::kBool}),
            at::scalar_tensor(c.draw.Int(-3, 3))};
  }};
  specs["aten::addcmul."] = {[](const Call& c) -> Inputs {
    const std::vector<int64_t> shape = c.Shape(c.Rank(0, 3));
    return {c.Tensor(shape, kFloats), c.Tensor(c.draw.BroadcastableTo(shape), kFloats),
            c.Tensor(c.draw.BroadcastableTo(shape), kFloats), c.Scalar(kNumbers)};
  }};
  specs["aten::lerp.Scalar"] = {[](const Call& c) -> Inputs {
    const std::vector<int64_t> shape = c.Shape(c.Rank(0, 3));
    const at::ScalarType dtype = c.draw.OneOf(kFloats);
    return {c.draw.Tensor(shape, dtype), c.draw.Tensor(c.draw.BroadcastableTo(shape), dtype),
            c.Scalar(kFloats)};
  }};
  specs["aten::lerp.Tensor"] = {[](const Call& c) -> Inputs {
    const std::vector<int64_t> shape = c.Shape(c.Rank(0, 3));
    const at::ScalarType dtype = c.draw.OneOf(kFloats);
    return {c.draw.Tensor(shape, dtype), c.draw.Tensor(c.draw.BroadcastableTo(shape), dtype),
            c.draw.Tensor(c.draw.BroadcastableTo(shape), dtype)};
  }};
  return specs;
}

}  // namespace

std::map<std::string, Spec> ElementwiseOutVariantSpecs() {
  std::map<std::string, Spec> specs = UnarySpecs();
  specs.merge(BinarySpecs());
  return specs;
}

}  // namespace specs
}  // namespace testing
}  // namespace static_runtime
