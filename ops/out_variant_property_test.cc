// One RapidCheck property per registered out-variant kernel: random shapes
// (empty dims, size 1, broadcasting, non-contiguous inputs), every dtype the
// kernel claims, random scalar arguments. Each case calls the kernel three
// times on the same output slots with growing and shrinking shapes and
// changing dtypes; every result must equal the JIT's own operator on the same
// inputs exactly, and when the result dtype does not change
// the kernel must have written into the tensor it left in the slot.
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "ATen/ATen.h"
#include "absl/strings/str_cat.h"
#include "c10/core/InferenceMode.h"
#include "gtest/gtest.h"
#include "memory/counting_allocator.h"
#include "ops/core/fallback.h"
#include "ops/core/out_variant_test_support.h"
#include "ops/core/registry.h"
#include "rapidcheck.h"
#include "torch/csrc/jit/frontend/function_schema_parser.h"

namespace static_runtime {
namespace {

using testing::Draw;
using Inputs = std::vector<c10::IValue>;
using DtypeList = std::vector<at::ScalarType>;

const DtypeList kFloats = {at::kFloat, at::kDouble};
const DtypeList kNumbers = {at::kFloat, at::kDouble, at::kLong};
const DtypeList kAll = {at::kFloat, at::kDouble, at::kLong, at::kBool};

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

Spec Unary(DtypeList dtypes, std::function<Inputs(const Call&)> extra = nullptr) {
  return {[dtypes, extra](const Call& c) {
    Inputs inputs = {c.Tensor(c.Shape(c.Rank(0, 3)), dtypes)};
    if (extra) {
      for (c10::IValue& value : extra(c)) inputs.push_back(std::move(value));
    }
    return inputs;
  }};
}

Spec Binary(DtypeList dtypes, std::function<Inputs(const Call&)> extra = nullptr) {
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
                std::function<Inputs(const Call&)> extra = nullptr) {
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
Spec OverDim(DtypeList dtypes, bool dtype_arg, bool non_empty = false) {
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
              bool non_empty = false) {
  return {[dtypes, tail, non_empty](const Call& c) {
    const int64_t rank = c.Rank(1, 3);
    Inputs inputs = {c.Tensor(non_empty ? c.NonEmptyShape(rank) : c.Shape(rank), dtypes)};
    for (c10::IValue& value : tail(c, rank)) inputs.push_back(std::move(value));
    return inputs;
  }};
}

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

std::map<std::string, Spec> ReductionSpecs() {
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

std::map<std::string, Spec> LinalgSpecs() {
  std::map<std::string, Spec> specs;
  auto dim = [](const Call& c) { return c.draw.Int(c.scale == 0 ? 0 : 1, 1 + 3 * c.scale); };
  auto dtype = [](const Call& c) { return c.draw.OneOf(kFloats); };
  specs["aten::mm."] = {[=](const Call& c) -> Inputs {
    const int64_t n = dim(c), k = dim(c), m = dim(c);
    const at::ScalarType t = dtype(c);
    return {c.draw.Tensor({n, k}, t), c.draw.Tensor({k, m}, t)};
  }};
  specs["aten::addmm."] = {[=](const Call& c) -> Inputs {
    const int64_t n = dim(c), k = dim(c), m = dim(c);
    const at::ScalarType t = dtype(c);
    return {c.draw.Tensor(c.draw.Bool() ? std::vector<int64_t>{m} : std::vector<int64_t>{n, m}, t),
            c.draw.Tensor({n, k}, t), c.draw.Tensor({k, m}, t), c.Scalar(kNumbers),
            c.Scalar(kNumbers)};
  }};
  specs["aten::bmm."] = {[=](const Call& c) -> Inputs {
    const int64_t b = dim(c), n = dim(c), k = dim(c), m = dim(c);
    const at::ScalarType t = dtype(c);
    return {c.draw.Tensor({b, n, k}, t), c.draw.Tensor({b, k, m}, t)};
  }};
  // beta is never 0: LibTorch 1.13's baddbmm then reads uninitialized memory
  // (the JIT's own result has NaNs that change from run to run). A third of
  // the calls add to a broadcast self with beta and alpha 1 (masked
  // attention scores: the kernel's own gemm calls, ops/linalg/batched_gemm.h), a
  // third have beta 1 and another alpha, on products big enough for the
  // kernel's gemm calls (400 multiply-adds).
  specs["aten::baddbmm."] = {[=](const Call& c) -> Inputs {
    const int64_t mode = c.draw.Int(0, 2);
    auto side = [&] { return mode == 2 ? dim(c) : c.draw.Int(4, 12); };
    const int64_t b = side(), n = side(), k = side(), m = side();
    const at::ScalarType t = dtype(c);
    const std::vector<std::vector<int64_t>> selves = {{b, n, m}, {n, m}, {1, n, m}, {m}};
    const c10::IValue one(int64_t{1});
    return {c.draw.Tensor(selves[static_cast<size_t>(mode == 0 ? c.draw.Int(0, 3) : 0)], t),
            c.draw.Tensor({b, n, k}, t), c.draw.Tensor({b, k, m}, t),
            mode < 2 ? one : c10::IValue(c.draw.Int(1, 3) * (c.draw.Bool() ? 1 : -1)),
            mode == 0 ? one : c.Scalar(kNumbers)};
  }};
  specs["aten::matmul."] = {[=](const Call& c) -> Inputs {
    const int64_t k = dim(c);
    const at::ScalarType t = dtype(c);
    std::vector<int64_t> a = {k}, b = {k};
    const int64_t a_rank = 1 + c.structure % 3;
    const int64_t b_rank = 1 + (c.structure / 3) % 3;
    if (a_rank >= 2) a.insert(a.begin(), dim(c));
    if (b_rank >= 2) b.push_back(dim(c));
    if (a_rank == 3) a.insert(a.begin(), dim(c));
    if (b_rank == 3) b.insert(b.begin(), a_rank == 3 ? a[0] : dim(c));
    return {c.draw.Tensor(a, t), c.draw.Tensor(b, t)};
  }};
  // One mm or bmm: written into the output; other shapes are allocated.
  specs["aten::matmul."].writes_into_output = [](const Inputs& inputs) {
    const at::Tensor& a = inputs[0].toTensor();
    const at::Tensor& b = inputs[1].toTensor();
    return (a.dim() == 2 && b.dim() == 2) ||
           (a.dim() == 3 && b.dim() == 3 && a.size(0) == b.size(0));
  };
  specs["aten::linear."] = {[=](const Call& c) -> Inputs {
    const int64_t in = dim(c), out = dim(c);
    const at::ScalarType t = dtype(c);
    std::vector<int64_t> shape = c.Shape(c.Rank(0, 2));
    shape.push_back(in);
    return {c.draw.Tensor(shape, t), c.draw.Tensor({out, in}, t),
            c.draw.Bool() ? c10::IValue() : c10::IValue(c.draw.Tensor({out}, t))};
  }};
  return specs;
}

std::map<std::string, Spec> NnSpecs() {
  std::map<std::string, Spec> specs;
  for (const char* name : {"aten::softmax.int", "aten::log_softmax.int"}) {
    specs[name] = OverDims(kFloats, [](const Call& c, int64_t rank) -> Inputs {
      return {c.Dim(rank), c10::IValue()};
    });
  }
  specs["aten::layer_norm."] = {[](const Call& c) -> Inputs {
    const int64_t rank = c.Rank(1, 3);
    const std::vector<int64_t> shape = c.NonEmptyShape(rank);
    const int64_t normalized = c.draw.Int(1, rank);
    const std::vector<int64_t> normalized_shape(shape.end() - normalized, shape.end());
    const at::ScalarType t = c.draw.OneOf(kFloats);
    auto affine = [&]() {
      return c.draw.Bool() ? c10::IValue() : c10::IValue(c.draw.Tensor(normalized_shape, t));
    };
    return {c.draw.Tensor(shape, t),
            c10::List<int64_t>(normalized_shape),
            affine(),
            affine(),
            1e-5,
            true};
  }};
  // Group norms of rank 2 to 4 with channels a multiple of the groups (and
  // sometimes not: ATen's error), weight and bias optional, sometimes
  // channels-last, doubles and strided inputs (ATen's op runs those).
  specs["aten::group_norm."] = {[](const Call& c) -> Inputs {
    const int64_t rank = c.Rank(2, 4);
    std::vector<int64_t> shape = c.NonEmptyShape(rank);
    const int64_t groups = c.draw.Int(1, 3);
    shape[1] = groups * c.draw.Int(1, 4) + (c.draw.Int(0, 9) == 0 ? 1 : 0);
    const at::ScalarType t = c.draw.Int(0, 4) == 0 ? at::kDouble : at::kFloat;
    at::Tensor x = c.draw.Tensor(shape, t);
    if (rank == 4 && c.draw.Int(0, 3) == 0) x = x.contiguous(at::MemoryFormat::ChannelsLast);
    auto affine = [&]() {
      return c.draw.Bool() ? c10::IValue() : c10::IValue(c.draw.Tensor({shape[1]}, t));
    };
    return {x, groups, affine(), affine(), 1e-5, true};
  }};
  // Instance norms of rank 3 to 5, weight and bias optional (sometimes of
  // the wrong size: ATen's error), doubles, channels-last and strided inputs;
  // sometimes with running statistics (then not use_input_stats, ATen's
  // op), or without input statistics and without running ones (ATen's
  // error).
  specs["aten::instance_norm."] = {[](const Call& c) -> Inputs {
    const int64_t rank = c.Rank(3, 5);
    const std::vector<int64_t> shape = c.NonEmptyShape(rank);
    const at::ScalarType t = c.draw.Int(0, 4) == 0 ? at::kDouble : at::kFloat;
    at::Tensor x = c.draw.Tensor(shape, t);
    if (rank == 4 && c.draw.Int(0, 3) == 0) x = x.contiguous(at::MemoryFormat::ChannelsLast);
    const int64_t channels = shape[1] + (c.draw.Int(0, 19) == 0 ? 1 : 0);
    auto affine = [&]() {
      return c.draw.Bool() ? c10::IValue() : c10::IValue(c.draw.Tensor({channels}, t));
    };
    const int kind = c.draw.Int(0, 9);  // 0: running statistics, 1: none at all
    // ATen writes the mean over the batch of the repeated running statistics
    // back into them, which rounds, and the JIT runs first on the same
    // inputs: quarters, whose sums and means are exact, keep them as drawn.
    auto quarters = [&](double offset) {
      return c10::IValue((c.draw.Tensor({shape[1]}, t).abs() * 4).round() / 4 + offset);
    };
    const c10::IValue running_mean = kind == 0 ? quarters(-1.0) : c10::IValue();
    const c10::IValue running_var = kind == 0 ? quarters(0.5) : c10::IValue();
    return {x, affine(), affine(), running_mean, running_var, kind > 1, 0.1, 1e-5, true};
  }};
  // PReLU with one weight or one per channel (dimension 1), rank 1 to 4,
  // NaN, infinities and signed zeros sometimes; doubles, strided inputs and
  // a weight of the wrong size (ATen's error) too.
  specs["aten::prelu."] = {[](const Call& c) -> Inputs {
    const int64_t rank = c.Rank(1, 4);
    const std::vector<int64_t> shape = c.Shape(rank);
    const at::ScalarType t = c.draw.Int(0, 4) == 0 ? at::kDouble : at::kFloat;
    at::Tensor x = c.draw.Tensor(shape, t);
    if (x.numel() > 0 && c.draw.Int(0, 3) == 0) {
      x.as_strided({1}, {1}).fill_(c.draw.OneOf<double>({NAN, INFINITY, -INFINITY, -0.0, 0.0}));
    }
    const int64_t channels = rank >= 2 ? shape[1] : 1;
    const int64_t weights = c.draw.Bool() ? 1 : channels + (c.draw.Int(0, 9) == 0 ? 1 : 0);
    return {x, c.draw.Tensor({weights}, t)};
  }};
  specs["aten::group_norm."].writes_into_output = [](const Inputs& inputs) {
    const at::Tensor& x = inputs[0].toTensor();
    const auto plain = [&](const c10::IValue& v) {
      return v.isNone() || v.toTensor().is_contiguous();
    };
    return x.numel() > 0 && x.is_contiguous() &&
           x.suggest_memory_format() == at::MemoryFormat::Contiguous &&
           x.size(1) % inputs[1].toInt() == 0 && plain(inputs[2]) && plain(inputs[3]);
  };
  specs["aten::instance_norm."].writes_into_output = [](const Inputs& inputs) {
    const at::Tensor& x = inputs[0].toTensor();
    const auto plain = [&](const c10::IValue& v) {
      return v.isNone() || (v.toTensor().is_contiguous() && v.toTensor().size(0) == x.size(1));
    };
    return x.numel() > 0 && x.is_contiguous() &&
           x.suggest_memory_format() == at::MemoryFormat::Contiguous && plain(inputs[1]) &&
           plain(inputs[2]) && inputs[3].isNone() && inputs[4].isNone() && inputs[5].toBool();
  };
  specs["aten::prelu."].writes_into_output = [](const Inputs& inputs) {
    const at::Tensor& x = inputs[0].toTensor();
    return x.is_contiguous() && x.suggest_memory_format() == at::MemoryFormat::Contiguous &&
           inputs[1].toTensor().is_contiguous();
  };
  // GLU over a dimension of even size (sometimes odd: ATen's error).
  // Nested tensors of [length, width] sequences (lengths 0 to the padded
  // length, one at least 1), float or double, padded with a number float32
  // may round; sometimes an output size larger than the padded form (ATen's
  // op runs).
  specs["aten::to_padded_tensor."] = {[](const Call& c) -> Inputs {
    const std::vector<int64_t> shape = c.NonEmptyShape(3);
    at::Tensor keep = at::zeros({shape[0], shape[1]}, at::kBool);
    for (int64_t b = 0; b < shape[0]; ++b) {
      keep[b].narrow(0, 0, b == 0 ? shape[1] : c.draw.Int(0, shape[1])).fill_(true);
    }
    const at::Tensor nested =
        at::_nested_tensor_from_mask(c.Tensor(shape, kFloats).contiguous(), keep, true);
    c10::IValue size;
    if (c.draw.Int(0, 4) == 0) size = std::vector<int64_t>{shape[0], shape[1] + 1, shape[2]};
    return {nested, c.Scalar(kFloats), size};
  }};
  specs["aten::to_padded_tensor."].writes_into_output = [](const Inputs& inputs) {
    return inputs[2].isNone();
  };
  specs["aten::glu."] = {[](const Call& c) -> Inputs {
    const int64_t rank = c.Rank(1, 3);
    std::vector<int64_t> shape = c.Shape(rank);
    const int64_t dim = c.draw.Int(0, rank - 1);
    shape[dim] = 2 * c.draw.Int(1, 3) + (c.draw.Int(0, 9) == 0 ? 1 : 0);
    return {c.Tensor(shape, kFloats), c.draw.Bool() ? dim : dim - rank};
  }};
  // Inference batch norms on float tensors of rank 2 to 5, contiguous,
  // channels-last or strided, with NaN and infinities sometimes; weight and
  // bias optional. Doubles, strided or channels-last 5-D inputs, empty ones
  // and training mode run ATen's op.
  specs["aten::batch_norm."] = {[](const Call& c) -> Inputs {
    const int64_t rank = c.Rank(2, 5);
    std::vector<int64_t> shape = c.Shape(rank);
    if (c.draw.Int(0, 3) == 0) shape[1] = c.draw.Int(9, 40);  // vectors and tails of channels
    const at::ScalarType t = c.draw.Int(0, 4) == 0 ? at::kDouble : at::kFloat;
    at::Tensor x = c.draw.Tensor(shape, t);
    if (rank >= 4 && c.draw.Bool()) {
      x = x.contiguous(rank == 4 ? at::MemoryFormat::ChannelsLast
                                 : at::MemoryFormat::ChannelsLast3d);
    }
    if (x.numel() > 0 && c.draw.Int(0, 3) == 0) {
      at::Tensor element = x;
      while (element.dim() > 0) element = element.select(0, c.draw.Int(0, element.size(0) - 1));
      element.fill_(c.draw.OneOf<double>({NAN, INFINITY, -INFINITY}));
    }
    const int64_t channels = shape[1];
    auto affine = [&]() {
      return c.draw.Bool() ? c10::IValue() : c10::IValue(c.draw.Tensor({channels}, t));
    };
    return {x,
            affine(),
            affine(),
            c.draw.ContiguousTensor({channels}, t),
            c.draw.ContiguousTensor({channels}, t).abs() + 0.1,
            c.draw.Int(0, 5) == 0,
            0.1,
            c.draw.OneOf<double>({1e-5, 1e-3, 0.25}),
            false};
  }};
  // Where ATen's contiguous and channels-last loops run (the kernel's own).
  specs["aten::batch_norm."].writes_into_output = [](const Inputs& inputs) {
    const at::Tensor& x = inputs[0].toTensor();
    const at::MemoryFormat layout = x.suggest_memory_format();
    const auto contiguous = [](const c10::IValue& v) {
      return v.isNone() || v.toTensor().is_contiguous();
    };
    return !inputs[5].toBool() && x.scalar_type() == at::kFloat && x.numel() > 0 &&
           (layout == at::MemoryFormat::Contiguous || layout == at::MemoryFormat::ChannelsLast) &&
           x.is_contiguous(layout) && contiguous(inputs[1]) && contiguous(inputs[2]);
  };
  // Sometimes int32 indices, or one out of range (ATen's error).
  specs["aten::embedding."] = {[](const Call& c) -> Inputs {
    const int64_t rows = c.draw.Int(1, 6);
    at::Tensor indices = c.draw.Indices(c.Shape(c.Rank(1, 2)), 0, rows);
    if (indices.numel() > 0 && c.draw.Int(0, 4) == 0) {
      indices.view(-1)[c.draw.Int(0, indices.numel() - 1)] = c.draw.Bool() ? rows : -1;
    }
    if (c.draw.Bool()) indices = indices.to(at::kInt);
    return {c.draw.Tensor({rows, c.draw.Int(1, 5)}, c.draw.OneOf(kFloats)), indices, -1, false,
            false};
  }};
  auto image = [](const Call& c, int64_t min_side) {
    return c.draw.Tensor({c.draw.Int(1, 2), c.draw.Int(1, 3), c.draw.Int(min_side, 3 + 2 * c.scale),
                          c.draw.Int(min_side, 3 + 2 * c.scale)},
                         c.draw.OneOf(kFloats));
  };
  // Bags of ids drawn as sorted offsets starting at 0; sometimes an index
  // out of range, a padding row, int32 ids or the closing offset included.
  // Float weights run the AVX2 kernel, doubles the plain loop.
  auto embedding_bag = [](const Call& c, bool padding_idx_argument) -> Inputs {
    const int64_t rows = c.draw.Int(1, 6);
    const at::ScalarType index_type = c.draw.Bool() ? at::kLong : at::kInt;
    const int64_t bags = c.draw.Int(c.scale == 0 ? 0 : 1, 1 + 2 * c.scale);
    std::vector<int64_t> offsets = {0};
    for (int64_t b = 1; b < bags; ++b) offsets.push_back(offsets.back() + c.draw.Int(0, 3));
    const int64_t num_indices = offsets.back() + c.draw.Int(0, 3);
    const bool include_last = c.draw.Int(0, 3) == 0;
    if (include_last) offsets.push_back(num_indices);
    const int64_t high = c.draw.Int(0, 9) == 0 ? rows + 1 : rows;
    // Widths up to 17, sometimes up to 100 (the vector kernel sums 64, 32,
    // 16 and 8 columns at a time, then the rest).
    const int64_t dim = c.draw.Int(0, 3) == 0 ? c.draw.Int(18, 100) : c.draw.Int(1, 17);
    Inputs inputs = {c.draw.ContiguousTensor({rows, dim}, c.draw.OneOf(kFloats)),
                     c.draw.Indices({num_indices}, 0, high).to(index_type),
                     at::tensor(offsets, at::kLong).to(index_type),
                     false,
                     c.draw.Int(0, 1),
                     false,
                     c10::IValue(),
                     include_last};
    if (padding_idx_argument) {
      inputs.push_back(c.draw.Bool() ? c10::IValue(c.draw.Int(-rows, rows - 1)) : c10::IValue());
    }
    return inputs;
  };
  specs["aten::embedding_bag."] = {[=](const Call& c) { return embedding_bag(c, false); }};
  specs["aten::embedding_bag.padding_idx"] = {
      [=](const Call& c) { return embedding_bag(c, true); }};
  for (const char* key : {"aten::embedding_bag.", "aten::embedding_bag.padding_idx"}) {
    specs[key].compared_outputs = 1;
  }
  // Images of every layout, sometimes NCHW rows wide enough for several
  // vectors of output columns (the kernel's own loop); windows of 1-3, strides
  // of 1-3 or the kernel's, padding up to half the window (sometimes more:
  // ATen's error), a divisor sometimes.
  specs["aten::avg_pool2d."] = {[=](const Call& c) -> Inputs {
    at::Tensor x = image(c, 3);
    if (c.draw.Bool())
      x = c.draw.Tensor({x.size(0), x.size(1), x.size(2), c.draw.Int(16, 48)}, x.scalar_type());
    const int64_t kernel_h = c.draw.Int(1, 3), kernel_w = c.draw.Int(1, 3);
    const int64_t most_padding = c.draw.Int(0, 9) == 0 ? 2 : 1;
    return {x,
            c10::List<int64_t>({kernel_h, kernel_w}),
            c.draw.Int(0, 3) == 0 ? c10::List<int64_t>()
                                  : c10::List<int64_t>({c.draw.Int(1, 3), c.draw.Int(1, 3)}),
            c10::List<int64_t>({c.draw.Int(0, std::min(kernel_h / 2 + 1, most_padding)),
                                c.draw.Int(0, std::min(kernel_w / 2 + 1, most_padding))}),
            c.draw.Bool(),
            c.draw.Bool(),
            c.draw.Int(0, 3) == 0 ? c10::IValue(c.draw.Int(1, 5)) : c10::IValue()};
  }};
  specs["aten::adaptive_avg_pool2d."] = {[=](const Call& c) -> Inputs {
    return {image(c, 1), c10::List<int64_t>({c.draw.Int(1, 3), c.draw.Int(1, 3)})};
  }};
  // unfold (im2col) of images [N, C, H, W] or unbatched [C, H, W]: windows
  // of 1-3, dilation 1-2, padding 0-1, stride 1-2 (a window larger than the
  // padded image: ATen's error). fold (col2im) of columns [N, C k k, L] into
  // an output size, L the windows' count, or one more (ATen's error).
  auto pair = [](const Call& c, int64_t low, int64_t high) {
    return std::array<int64_t, 2>{c.draw.Int(low, high), c.draw.Int(low, high)};
  };
  auto list = [](const std::array<int64_t, 2>& values) {
    return c10::List<int64_t>({values[0], values[1]});
  };
  specs["aten::im2col."] = {[=](const Call& c) -> Inputs {
    std::vector<int64_t> sizes = {c.draw.Int(1, 3), c.draw.Int(1, 4 + 2 * c.scale),
                                  c.draw.Int(1, 4 + 2 * c.scale)};
    if (c.draw.Bool()) sizes.insert(sizes.begin(), c.draw.Int(1, 2));
    return {c.draw.Tensor(sizes, c.draw.OneOf(kFloats)), list(pair(c, 1, 3)), list(pair(c, 1, 2)),
            list(pair(c, 0, 1)), list(pair(c, 1, 2))};
  }};
  specs["aten::col2im."] = {[=](const Call& c) -> Inputs {
    const auto size = pair(c, 1, 4 + 2 * c.scale), kernel = pair(c, 1, 3), dilation = pair(c, 1, 2),
               padding = pair(c, 0, 1), stride = pair(c, 1, 2);
    int64_t blocks = 1;
    for (int i = 0; i < 2; ++i) {
      blocks *= std::max<int64_t>(
          1, (size[i] + 2 * padding[i] - dilation[i] * (kernel[i] - 1) - 1) / stride[i] + 1);
    }
    if (c.draw.Int(0, 5) == 0) ++blocks;
    std::vector<int64_t> sizes = {c.draw.Int(1, 2) * kernel[0] * kernel[1], blocks};
    if (c.draw.Bool()) sizes.insert(sizes.begin(), c.draw.Int(1, 2));
    return {c.draw.Tensor(sizes, c.draw.OneOf(kFloats)),
            list(size),
            list(kernel),
            list(dilation),
            list(padding),
            list(stride)};
  }};
  // pixel_shuffle and pixel_unshuffle of [*, C, H, W] (zero to two leading
  // dims) by factors of 1-3, sometimes 0 or a size that does not divide
  // (ATen's errors).
  auto pixels = [](const Call& c, bool shuffle) -> Inputs {
    const int64_t r = c.draw.Int(0, 9) == 0 ? 0 : c.draw.Int(1, 3);
    const int64_t factor = std::max<int64_t>(r, 1);
    std::vector<int64_t> sizes = {c.draw.Int(1, 2) * (shuffle ? factor * factor : 1),
                                  c.draw.Int(1, 3) * (shuffle ? 1 : factor),
                                  c.draw.Int(1, 3) * (shuffle ? 1 : factor)};
    if (c.draw.Int(0, 9) == 0) ++sizes[c.draw.Int(0, 2)];
    for (int64_t i = c.draw.Int(0, 2); i > 0; --i) sizes.insert(sizes.begin(), c.draw.Int(1, 2));
    return {c.draw.Tensor(sizes, c.draw.OneOf(kAll)), r};
  };
  specs["aten::pixel_shuffle."] = {[=](const Call& c) { return pixels(c, true); }};
  specs["aten::pixel_unshuffle."] = {[=](const Call& c) { return pixels(c, false); }};
  // Clips [N, C, D, H, W] or unbatched [C, D, H, W]; the global 1x1x1 pool
  // (a mean) and others.
  specs["aten::adaptive_avg_pool3d."] = {[=](const Call& c) -> Inputs {
    std::vector<int64_t> sizes = c.draw.Shape(3, 1, 2 + c.scale);
    sizes.insert(sizes.begin(), c.draw.Int(1, 3));
    if (c.draw.Bool()) sizes.insert(sizes.begin(), c.draw.Int(1, 2));
    const bool global = c.draw.Bool();
    return {c.draw.Tensor(sizes, c.draw.OneOf(kFloats)),
            c10::List<int64_t>({global ? 1 : c.draw.Int(1, 3), global ? 1 : c.draw.Int(1, 3),
                                global ? 1 : c.draw.Int(1, 3)})};
  }};
  // Float images, channels-last (up to 40 channels for the vector tails) or
  // NCHW (sometimes rows wide enough for several vectors of output columns),
  // with NaNs, ties and infinities, or anything else (ATen's op); windows
  // ATen accepts and some it rejects.
  specs["aten::max_pool2d."] = {[=](const Call& c) -> Inputs {
    const int64_t kernel = c.draw.Int(1, 3);
    const int64_t width = c.draw.Bool() ? c.draw.Int(1, 4 + 2 * c.scale) : c.draw.Int(16, 48);
    at::Tensor x =
        c.draw.Tensor({c.draw.Int(1, 2), c.draw.Int(1, 40), c.draw.Int(1, 4 + 2 * c.scale), width},
                      c.draw.OneOf(kFloats));
    if (c.draw.Bool()) x = x.contiguous(at::MemoryFormat::ChannelsLast);
    if (x.is_floating_point() && c.draw.Bool()) {
      x = x.round();  // ties
      const double special = c.draw.OneOf<double>({NAN, INFINITY, -INFINITY});
      at::Tensor element = x;
      while (element.dim() > 0) element = element.select(0, c.draw.Int(0, element.size(0) - 1));
      element.fill_(special);
    }
    const auto pair = [&](int64_t low, int64_t high) {
      return c.draw.Bool() ? c10::List<int64_t>({c.draw.Int(low, high)})
                           : c10::List<int64_t>({c.draw.Int(low, high), c.draw.Int(low, high)});
    };
    return {x,
            c10::List<int64_t>({kernel, c.draw.Int(1, 3)}),
            c.draw.Int(0, 3) == 0 ? c10::List<int64_t>() : pair(1, 2),
            pair(0, 1),
            pair(1, 2),
            c.draw.Bool()};
  }};

  return specs;
}

std::map<std::string, Spec> DataSpecs() {
  std::map<std::string, Spec> specs;
  // `count` tensors that agree except along `dim` (cat) or entirely (stack).
  auto pieces = [](const Call& c, bool stack, int64_t& dim) {
    const int64_t rank = c.Rank(1, 3);
    dim = c.Dim(rank);
    const int64_t count = 1 + c.structure % 3;
    std::vector<int64_t> shape = c.Shape(rank);
    std::vector<at::Tensor> tensors;
    for (int64_t i = 0; i < count; ++i) {
      if (!stack) shape[(dim + rank) % rank] = c.draw.Int(0, 3);
      tensors.push_back(c.Tensor(shape, kAll));
    }
    return tensors;
  };
  for (const bool stack : {false, true}) {
    specs[stack ? "aten::stack." : "aten::cat."] = {[=](const Call& c) -> Inputs {
      int64_t dim;
      return {c10::List<at::Tensor>(pieces(c, stack, dim)), dim};
    }};
    Spec variadic{[=](const Call& c) -> Inputs {
      int64_t dim;
      Inputs inputs;
      for (const at::Tensor& tensor : pieces(c, stack, dim)) inputs.push_back(tensor);
      inputs.push_back(dim);
      return inputs;
    }};
    specs[stack ? "static_runtime::variadic_stack" : "static_runtime::variadic_cat"] = variadic;
  }
  specs["aten::index_select."] = {[](const Call& c) -> Inputs {
    const int64_t rank = c.Rank(1, 3);
    const std::vector<int64_t> shape = c.NonEmptyShape(rank);
    const int64_t dim = c.Dim(rank);
    return {c.Tensor(shape, kAll), dim,
            c.draw.Indices({c.draw.Int(0, 4)}, 0, shape[(dim + rank) % rank])};
  }};
  specs["aten::gather."] = {[](const Call& c) -> Inputs {
    const int64_t rank = c.Rank(1, 3);
    const std::vector<int64_t> shape = c.NonEmptyShape(rank);
    const int64_t dim = c.Dim(rank);
    std::vector<int64_t> index_shape;
    for (int64_t size : shape) index_shape.push_back(c.draw.Int(1, size));
    return {c.Tensor(shape, kAll), dim, c.draw.Indices(index_shape, 0, shape[(dim + rank) % rank]),
            false};
  }};
  specs["aten::repeat."] = OverDims(kAll, [](const Call& c, int64_t rank) -> Inputs {
    std::vector<int64_t> repeats;
    for (int64_t i = 0; i < rank + c.draw.Int(0, 1); ++i) repeats.push_back(c.draw.Int(0, 3));
    return {c10::List<int64_t>(repeats)};
  });
  specs["aten::topk."] = {[](const Call& c) -> Inputs {
    const int64_t rank = c.Rank(1, 3);
    const std::vector<int64_t> shape = c.NonEmptyShape(rank);
    const int64_t dim = c.Dim(rank);
    // Distinct values, so the order of ties cannot differ.
    at::Tensor x = at::randperm(at::prod(at::tensor(shape)).item<int64_t>()).reshape(shape);
    return {x.to(c.draw.OneOf(kNumbers)), c.draw.Int(0, shape[(dim + rank) % rank]), dim,
            c.draw.Bool(), true};
  }};
  specs["aten::sort."] = {[](const Call& c) -> Inputs {
    const int64_t rank = c.Rank(1, 3);
    const std::vector<int64_t> shape = c.Shape(rank);
    at::Tensor x = at::randperm(at::prod(at::tensor(shape)).item<int64_t>()).reshape(shape);
    return {x.to(c.draw.OneOf(kNumbers)), c.Dim(rank), c.draw.Bool()};
  }};
  // No format, or one of them (channels_last fails on these ranks, both ways).
  auto memory_format = [](const Call& c) -> c10::IValue {
    static const std::vector<c10::IValue> kFormats = {c10::IValue(), at::MemoryFormat::Preserve,
                                                      at::MemoryFormat::Contiguous,
                                                      at::MemoryFormat::ChannelsLast};
    return c.draw.OneOf(kFormats);
  };
  specs["aten::clone."] =
      Unary(kAll, [memory_format](const Call& c) -> Inputs { return {memory_format(c)}; });
  specs["aten::contiguous."] = Unary(kAll, [](const Call& c) -> Inputs {
    return {c.draw.Bool() ? at::MemoryFormat::Contiguous : at::MemoryFormat::Preserve};
  });
  specs["aten::contiguous."].may_alias = true;
  specs["aten::type_as."] = {[](const Call& c) -> Inputs {
    return {c.Tensor(c.Shape(c.Rank(0, 3)), kAll), c.Tensor({1}, kAll)};
  }};
  specs["aten::type_as."].may_alias = true;
  auto like_options = [memory_format](const Call& c) -> Inputs {
    return {c.draw.Bool() ? c10::IValue() : c10::IValue(c.draw.OneOf(kAll)), c10::IValue(),
            c10::IValue(), c10::IValue(), memory_format(c)};
  };
  specs["aten::empty_like."] = Unary(kAll, like_options);
  specs["aten::empty_like."].compares_values = false;
  specs["aten::zeros_like."] = Unary(kAll, like_options);
  specs["aten::ones_like."] = Unary(kAll, like_options);
  specs["aten::full_like."] = Unary(kAll, [=](const Call& c) -> Inputs {
    Inputs inputs = like_options(c);
    inputs.insert(inputs.begin(), c.Scalar({at::kLong}));
    return inputs;
  });

  // zeros/ones/full(size, [value,] dtype, layout, device, pin_memory), and
  // new_zeros/new_ones/new_full with a tensor first (a value of 0 or 1 fits
  // its every dtype).
  auto sized = [](bool has_value, bool like_self) {
    return Spec{[has_value, like_self](const Call& c) -> Inputs {
      Inputs inputs;
      if (like_self) inputs.push_back(c.Tensor(c.Shape(c.Rank(0, 2)), kAll));
      inputs.push_back(c10::List<int64_t>(c.Shape(c.Rank(0, 3))));
      if (has_value) {
        inputs.push_back(like_self ? c10::IValue(static_cast<int64_t>(c.draw.Int(0, 1)))
                                   : c.Scalar(kAll));
      }
      inputs.push_back(c.draw.Bool() ? c10::IValue() : c10::IValue(c.draw.OneOf(kAll)));
      for (int i = 0; i < 3; ++i) inputs.push_back(c10::IValue());
      return inputs;
    }};
  };
  for (const bool like_self : {false, true}) {
    const std::string prefix = like_self ? "aten::new_" : "aten::";
    specs[prefix + "zeros."] = sized(false, like_self);
    specs[prefix + "ones."] = sized(false, like_self);
    specs[prefix + "full."] = sized(true, like_self);
  }
  // Images upsampled to an output size or by scale factors (exactly one of
  // them in the .vec forms), bilinear with and without aligned corners.
  auto image = [](const Call& c) {
    return c.Tensor({c.draw.Int(1, 2), c.draw.Int(1, 3), c.draw.Int(1, 5), c.draw.Int(1, 5)},
                    kFloats);
  };
  auto output_size = [](const Call& c) {
    return c10::List<int64_t>({c.draw.Int(1, 9), c.draw.Int(1, 9)});
  };
  auto size_or_scales = [=](const Call& c) -> std::pair<c10::IValue, c10::IValue> {
    if (c.draw.Bool()) return {output_size(c), c10::IValue()};
    const double scale = c.draw.OneOf<double>({0.5, 1.0, 1.5, 2.0, 3.0});
    return {c10::IValue(), c10::List<double>({scale, c.draw.Bool() ? scale : 2.0})};
  };
  auto optional_scale = [](const Call& c) {
    return c.draw.Bool() ? c10::IValue() : c10::IValue(c.draw.OneOf<double>({0.5, 2.0}));
  };
  specs["aten::upsample_nearest2d.vec"] = {[=](const Call& c) -> Inputs {
    auto [size, scales] = size_or_scales(c);
    return {image(c), size, scales};
  }};
  specs["aten::upsample_bilinear2d.vec"] = {[=](const Call& c) -> Inputs {
    auto [size, scales] = size_or_scales(c);
    return {image(c), size, c.draw.Bool(), scales};
  }};
  specs["aten::upsample_nearest2d."] = {[=](const Call& c) -> Inputs {
    return {image(c), output_size(c), optional_scale(c), optional_scale(c)};
  }};
  // roll(self, shifts, dims): no dims (the flattened tensor), one or two
  // (perhaps the same one twice).
  specs["aten::roll."] = OverDims(
      kAll,
      [](const Call& c, int64_t rank) -> Inputs {
        const int64_t count = c.draw.Int(0, 2);
        std::vector<int64_t> shifts;
        std::vector<int64_t> dims;
        for (int64_t i = 0; i < std::max<int64_t>(count, 1); ++i)
          shifts.push_back(c.draw.Int(-7, 7));
        for (int64_t i = 0; i < count; ++i) dims.push_back(c.draw.Int(-rank, rank - 1));
        return {c10::List<int64_t>(shifts), c10::List<int64_t>(dims)};
      },
      /*non_empty=*/true);
  // Constant padding of up to every dim: a pad before may be -1 (cropping),
  // which the non-empty sizes allow.
  auto constant_pads = [](const Call& c, int64_t rank) {
    std::vector<int64_t> pad;
    const int64_t padded_dims = c.draw.Int(0, rank);
    for (int64_t i = 0; i < padded_dims; ++i) {
      pad.push_back(c.draw.Int(-1, 3));
      pad.push_back(c.draw.Int(0, 3));
    }
    return c10::List<int64_t>(pad);
  };
  specs["aten::constant_pad_nd."] = OverDims(
      kAll,
      [=](const Call& c, int64_t rank) -> Inputs {
        return {constant_pads(c, rank), static_cast<int64_t>(c.draw.Int(0, 1))};
      },
      /*non_empty=*/true);
  specs["aten::pad."] = OverDims(
      kAll,
      [=](const Call& c, int64_t rank) -> Inputs {
        return {constant_pads(c, rank), std::string("constant"),
                c.draw.Bool() ? c10::IValue() : c10::IValue(static_cast<double>(c.draw.Int(0, 1)))};
      },
      /*non_empty=*/true);
  // empty(size, dtype, layout, device, pin_memory, memory_format).
  specs["aten::empty.memory_format"] = {[](const Call& c) -> Inputs {
    Inputs inputs = {c10::List<int64_t>(c.Shape(c.Rank(0, 3))),
                     c.draw.Bool() ? c10::IValue() : c10::IValue(c.draw.OneOf(kAll))};
    for (int i = 0; i < 3; ++i) inputs.push_back(c10::IValue());
    inputs.push_back(c.draw.Bool() ? c10::IValue() : c10::IValue(at::MemoryFormat::Contiguous));
    return inputs;
  }};
  specs["aten::empty.memory_format"].compares_values = false;
  // index with tensors (or None) for the leading dims, broadcasting together.
  specs["aten::index.Tensor"] = {[](const Call& c) -> Inputs {
    const int64_t rank = c.Rank(1, 3);
    const std::vector<int64_t> shape = c.NonEmptyShape(rank);
    const std::vector<int64_t> index_shape = {c.draw.Int(0, 4)};
    c10::List<c10::optional<at::Tensor>> indices;
    bool any_tensor = false;
    const int64_t indexed_dims = c.draw.Int(1, rank);
    for (int64_t d = 0; d < indexed_dims; ++d) {
      if (c.draw.Bool() || (!any_tensor && d == 0)) {
        indices.push_back(c.draw.Indices(index_shape, 0, shape[d]));
        any_tensor = true;
      } else {
        indices.push_back(c10::nullopt);
      }
    }
    return {c.Tensor(shape, kAll), indices};
  }};

  // arange: integer or float bounds, steps of either sign (sometimes 0 or
  // pointing away from the end: both are errors), an explicit dtype.
  auto arange = [](const Call& c, size_t scalars) -> Inputs {
    auto bound = [&] {
      return c.draw.Bool() ? c10::IValue(c.draw.Int(-3, 3 + 3 * c.scale))
                           : c10::IValue(c.draw.Int(-12, 12 + 12 * c.scale) / 4.0);
    };
    Inputs inputs;
    for (size_t i = 0; i < std::min<size_t>(scalars, 2); ++i) inputs.push_back(bound());
    if (scalars == 3) {
      inputs.push_back(c.draw.Bool() ? c10::IValue(c.draw.Int(-2, 2))
                                     : c10::IValue(c.draw.Int(-4, 4) / 2.0));
    }
    inputs.push_back(c.draw.Bool() ? c10::IValue()
                                   : c10::IValue(c.draw.OneOf(
                                         DtypeList{at::kFloat, at::kDouble, at::kLong, at::kInt})));
    for (int i = 0; i < 3; ++i) inputs.push_back(c10::IValue());
    return inputs;
  };
  specs["aten::arange."] = {[=](const Call& c) { return arange(c, 1); }};
  specs["aten::arange.start"] = {[=](const Call& c) { return arange(c, 2); }};
  specs["aten::arange.start_step"] = {[=](const Call& c) { return arange(c, 3); }};

  // eye: square or not, empty, sometimes a negative size (an error), an
  // explicit dtype.
  auto eye = [](const Call& c, bool with_m) -> Inputs {
    Inputs inputs = {c.draw.Int(-1, 6 + 6 * c.scale)};
    if (with_m) inputs.push_back(c.draw.Int(-1, 6 + 6 * c.scale));
    inputs.push_back(c.draw.Bool() ? c10::IValue()
                                   : c10::IValue(c.draw.OneOf(DtypeList{at::kFloat, at::kDouble,
                                                                        at::kLong, at::kBool})));
    for (int i = 0; i < 3; ++i) inputs.push_back(c10::IValue());
    return inputs;
  };
  specs["aten::eye."] = {[=](const Call& c) { return eye(c, false); }};
  specs["aten::eye.m"] = {[=](const Call& c) { return eye(c, true); }};

  // Copy variants: (view's arguments) -> a fresh contiguous tensor.
  auto copy = [](std::function<Inputs(const Call&)> inputs,
                 std::vector<std::string> overloads = {""}) {
    Spec spec{std::move(inputs)};
    spec.overloads = std::move(overloads);
    return spec;
  };
  specs["static_runtime::copy_reshape"] = copy([](const Call& c) -> Inputs {
    const std::vector<int64_t> shape = c.Shape(c.Rank(1, 3));
    std::vector<int64_t> target(shape.rbegin(), shape.rend());
    if (c.draw.Bool()) target[0] = -1;
    if (std::count(shape.begin(), shape.end(), 0) > 0) target[0] = 0;
    return {c.Tensor(shape, kAll), c10::List<int64_t>(target)};
  });
  specs["static_runtime::copy_flatten"] = copy(
      [](const Call& c) -> Inputs {
        const int64_t rank = c.Rank(1, 3);
        const int64_t start = c.draw.Int(0, rank - 1);
        return {c.Tensor(c.Shape(rank), kAll), start, c.draw.Int(start, rank - 1)};
      },
      {"using_ints"});
  specs["static_runtime::copy_permute"] = copy([](const Call& c) -> Inputs {
    const int64_t rank = c.Rank(1, 3);
    std::vector<int64_t> dims(rank);
    for (int64_t i = 0; i < rank; ++i) dims[i] = (i + c.structure) % rank;
    return {c.Tensor(c.Shape(rank), kAll), c10::List<int64_t>(dims)};
  });
  specs["static_runtime::copy_reshape_as"] = copy([](const Call& c) -> Inputs {
    const std::vector<int64_t> shape = c.Shape(c.Rank(1, 3));
    return {c.Tensor(shape, kAll),
            c.Tensor(std::vector<int64_t>(shape.rbegin(), shape.rend()), kAll)};
  });
  Spec maybe_copy = copy(
      [](const Call& c) -> Inputs {
        at::Tensor x = c.Tensor(c.Shape(c.Rank(0, 3)), kAll);
        c10::IValue target = c.overload == "dtype" ? c10::IValue(c.draw.OneOf(kAll))
                                                   : c10::IValue(c.Tensor({1}, kAll));
        return {x, target, false, c.draw.Bool(), c10::IValue()};
      },
      {"dtype", "other"});
  maybe_copy.may_alias = true;
  specs["static_runtime::maybe_copy_to"] = maybe_copy;

  // Splits: the node has one output per part.
  auto split = [](std::function<Inputs(const Call&)> inputs,
                  std::function<size_t(const Inputs&)> parts) {
    Spec spec{std::move(inputs)};
    spec.num_outputs = std::move(parts);
    return spec;
  };
  // Parts counts are fixed per case (the node's outputs), sizes vary.
  specs["static_runtime::split_unpacked"] = split(
      [](const Call& c) -> Inputs {
        const int64_t parts = 1 + c.structure % 3;
        const int64_t size = c.draw.Int(1, 2);
        std::vector<int64_t> shape = c.NonEmptyShape(2);
        shape[0] = parts * size;
        return {c.Tensor(shape, kAll), size, 0};
      },
      [](const Inputs& in) {
        return static_cast<size_t>(in[0].toTensor().size(0) / in[1].toInt());
      });
  specs["static_runtime::split_with_sizes_unpacked"] = split(
      [](const Call& c) -> Inputs {
        const int64_t parts = 1 + c.structure % 3;
        std::vector<int64_t> sizes;
        for (int64_t i = 0; i < parts; ++i) sizes.push_back(c.draw.Int(0, 3));
        std::vector<int64_t> shape = c.Shape(2);
        shape[1] = std::accumulate(sizes.begin(), sizes.end(), int64_t{0});
        return {c.Tensor(shape, kAll), c10::List<int64_t>(sizes), -1};
      },
      [](const Inputs& in) { return in[1].toIntVector().size(); });
  specs["static_runtime::chunk_unpacked"] = split(
      [](const Call& c) -> Inputs {
        const int64_t chunks = 1 + c.structure % 3;
        std::vector<int64_t> shape = c.NonEmptyShape(2);
        shape[1] = chunks * c.draw.Int(1, 2);
        return {c.Tensor(shape, kAll), chunks, 1};
      },
      [](const Inputs& in) { return static_cast<size_t>(in[1].toInt()); });
  specs["static_runtime::unbind_unpacked"] = split(
      [](const Call& c) -> Inputs {
        std::vector<int64_t> shape = c.Shape(2);
        shape[0] = 1 + c.structure % 3;
        return {c.Tensor(shape, kAll), 0};
      },
      [](const Inputs& in) { return static_cast<size_t>(in[0].toTensor().size(0)); });
  return specs;
}

const std::map<std::string, Spec>& Specs() {
  static const auto* const kSpecs = [] {
    auto* specs = new std::map<std::string, Spec>();
    for (auto family : {UnarySpecs, BinarySpecs, ReductionSpecs, LinalgSpecs, NnSpecs, DataSpecs}) {
      for (auto& [key, spec] : family()) {
        EXPECT_TRUE(specs->emplace(key, spec).second) << "two specs for " << key;
      }
    }
    return specs;
  }();
  return *kSpecs;
}

// "name.overload" for a schema key, the node kind otherwise.
std::string SpecKey(const std::string& registered) {
  if (registered.find('(') == std::string::npos) return registered;
  const c10::FunctionSchema schema = torch::jit::parseSchema(registered);
  return absl::StrCat(schema.name(), ".", schema.overload_name());
}

size_t Allocations() { return memory::CountingAllocator::Installed().count(); }

class OutVariantProperty : public ::testing::TestWithParam<std::string> {};

TEST_P(OutVariantProperty, MatchesTheJitAndReusesItsOutput) {
  const std::string& registered = GetParam();
  Allocations();
  auto found = Specs().find(SpecKey(registered));
  ASSERT_NE(found, Specs().end()) << "no property spec for " << registered;
  const Spec& spec = found->second;
  int reused = 0;
  int compared = 0;
  const bool ok = rc::check(registered, [&] {
    Draw draw;
    const int64_t structure = draw.Int(0, 999);
    // In inference mode an output the kernel does not reuse is computed by
    // ATen's CPU kernel directly; outside it, by the dispatcher.
    c10::InferenceMode inference_mode(draw.Bool());
    const std::string overload = draw.OneOf(spec.overloads);
    std::vector<Inputs> calls;
    for (int64_t scale : {draw.Int(0, 3), draw.Int(0, 3), draw.Int(0, 3)}) {
      calls.push_back(spec.inputs(Call{draw, structure, scale, overload}));
    }
    const testing::SingleNode single =
        testing::MakeNode(registered, overload, calls[0], spec.num_outputs(calls[0]));
    // The outputs not compared are not used by the graph either.
    while (spec.compared_outputs >= 0 &&
           single.graph->outputs().size() > static_cast<size_t>(spec.compared_outputs)) {
      single.graph->eraseOutput(single.graph->outputs().size() - 1);
    }
    auto selected = KernelRegistry::Global().Find(single.node, /*allow_out_variants=*/true);
    RC_ASSERT(selected.has_value());
    RC_ASSERT(selected->kind == NodeKind::kOutVariant);
    absl::StatusOr<Kernel> jit = MakeFallbackKernel(single.node);
    RC_ASSERT(jit.ok());

    const size_t num_outputs = single.node->outputs().size();
    const size_t compared_outputs =
        spec.compared_outputs < 0 ? num_outputs : static_cast<size_t>(spec.compared_outputs);
    testing::Slots ours(num_outputs);
    // What each output slot held after the previous call, if the kernel may
    // write into it again: same dtypes and nobody else holding the storage.
    std::vector<const void*> previous(num_outputs, nullptr);
    std::vector<at::ScalarType> previous_dtype(num_outputs, at::kByte);
    std::vector<size_t> previous_capacity(num_outputs, 0);
    bool previous_reusable = false;
    for (const Inputs& inputs : calls) {
      testing::Slots reference(num_outputs);
      const size_t before_jit = Allocations();
      const std::string expected_error = reference.Run(*jit, inputs);
      const size_t jit_allocations = Allocations() - before_jit;
      const std::string error = ours.Run(selected->kernel, inputs);
      if (!expected_error.empty() || !error.empty()) {
        if (expected_error.empty() || error.empty()) {
          RC_FAIL(absl::StrCat("the JIT ", expected_error.empty() ? "succeeded" : "failed",
                               " but the kernel ", error.empty() ? "succeeded" : "failed", ": ",
                               expected_error, error));
        }
        previous_reusable = false;
        continue;
      }
      bool same_dtypes = true;
      bool all_reused = true;
      bool fits = true;    // every output fits in the storage it reuses
      bool empty = false;  // some output holds no bytes: nothing to save
      for (size_t i = 0; i < compared_outputs; ++i) {
        const at::Tensor& tensor = ours.Output(i).toTensor();
        const at::Tensor& expected = reference.Output(i).toTensor();
        if (spec.compares_values) {
          const std::string difference = testing::Difference(reference.Output(i), ours.Output(i));
          if (!difference.empty()) RC_FAIL(absl::StrCat("output ", i, ": ", difference));
        } else if (tensor.scalar_type() != expected.scalar_type() ||
                   tensor.sizes() != expected.sizes()) {
          RC_FAIL(absl::StrCat("output ", i, ": ", c10::toString(expected.scalar_type()),
                               c10::str(expected.sizes()), " vs ",
                               c10::toString(tensor.scalar_type()), c10::str(tensor.sizes())));
        }
        ++compared;
        for (int64_t d = 0; d < tensor.dim(); ++d) {
          // (A stride is meaningless on a dim of size 1, or of an empty tensor.)
          if (tensor.numel() > 1 && tensor.size(d) > 1 && tensor.stride(d) != expected.stride(d)) {
            RC_FAIL(absl::StrCat("output ", i, ": strides ", c10::str(expected.strides()), " vs ",
                                 c10::str(tensor.strides()), " for sizes ",
                                 c10::str(tensor.sizes())));
          }
        }
        same_dtypes = same_dtypes && previous_dtype[i] == tensor.scalar_type();
        const size_t bytes = static_cast<size_t>(tensor.numel()) * tensor.element_size();
        fits = fits && bytes <= previous_capacity[i];
        empty = empty || bytes == 0;
        all_reused = all_reused && previous[i] == tensor.unsafeGetTensorImpl();
      }
      if (previous_reusable && same_dtypes && !spec.may_alias && spec.writes_into_output(inputs)) {
        if (!all_reused) RC_FAIL("an output of the same dtype was not reused");
        // Writing into the reused output must save the output allocation
        // (an out form that computes into a temporary and copies does not).
        // Measured on a repeat of the call, once per-thread scratch tensors
        // have grown.
        if (fits && !empty) {
          const size_t before_repeat = Allocations();
          ours.Run(selected->kernel, inputs);
          const size_t steady_allocations = Allocations() - before_repeat;
          if (steady_allocations >= jit_allocations) {
            RC_FAIL(absl::StrCat("the out variant allocated ", steady_allocations,
                                 " times, the JIT's operator ", jit_allocations));
          }
        }
        ++reused;
      }
      previous_reusable = true;
      for (size_t i = 0; i < num_outputs; ++i) {
        const at::Tensor& tensor = ours.Output(i).toTensor();
        previous[i] = tensor.unsafeGetTensorImpl();
        previous_dtype[i] = tensor.scalar_type();
        previous_capacity[i] = tensor.storage().nbytes();
        // Held elsewhere too (an alias of an input, which the test keeps).
        previous_reusable = previous_reusable && tensor.storage().use_count() == 1;
      }
    }
  });
  EXPECT_TRUE(ok);
  EXPECT_GT(compared, 0) << "no case ran without an error";
  if (!spec.may_alias) {
    EXPECT_GT(reused, 0) << "the output tensor was never reused";
  }
}

// Out variants with a property of their own elsewhere, because they only take
// nodes with constant arguments and match the JIT within a declared error
// bound.
bool TestedElsewhere(const std::string& kernel) {
  return kernel.rfind("static_runtime::conv2d_fused(", 0) == 0 ||  // //ops/conv:conv2d_test
         kernel.rfind("static_runtime::linear_fused(", 0) ==
             0 ||                                        // //ops/linalg:onednn_linear_test
         kernel == "static_runtime::fused_pointwise" ||  // //runtime:fusion_test
         // //ops/attention:transformer_encoder_layer_test, both
         kernel.rfind("static_runtime::transformer_encoder_layer(", 0) == 0 ||
         kernel.rfind("static_runtime::transformer_encoder_layer_row(", 0) == 0 ||
         // //ops/attention:multi_head_attention_test
         kernel.rfind("static_runtime::multi_head_attention(", 0) == 0 ||
         // //ops/conv:deconvolution_test
         kernel.rfind("aten::conv_transpose", 0) == 0 ||
         // //ops/conv:convolution3d_test
         kernel.rfind("aten::conv3d", 0) == 0 ||
         // //ops/quantized:embedding_bag_kernels_test and :dynamic_linear_test
         kernel.rfind("quantized::", 0) == 0;
}

std::vector<std::string> OutVariantKernels() {
  std::vector<std::string> kernels;
  for (const std::string& kernel : KernelRegistry::Global().Registered(NodeKind::kOutVariant)) {
    if (!TestedElsewhere(kernel)) kernels.push_back(kernel);
  }
  return kernels;
}

INSTANTIATE_TEST_SUITE_P(Registry, OutVariantProperty, ::testing::ValuesIn(OutVariantKernels()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = SpecKey(info.param);
                           for (char& ch : name) {
                             if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return name;
                         });

TEST(OutVariantRegistry, AtLeast120KernelsEachWithASpec) {
  const std::vector<std::string> kernels = OutVariantKernels();
  EXPECT_GE(kernels.size(), 120u);
  for (const std::string& kernel : kernels) {
    EXPECT_TRUE(Specs().count(SpecKey(kernel)) == 1) << "no property spec for " << kernel;
  }
}

}  // namespace
}  // namespace static_runtime
