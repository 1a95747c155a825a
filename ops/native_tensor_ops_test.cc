// One RapidCheck property per native view, in-place and misc kernel
// (ops/tensor/native_views.cc, elementwise/native_inplace.cc, prim/native_misc.cc): random shapes,
// dtypes and arguments, run inside and outside c10::InferenceMode (so both the
// direct ATen call and the dispatched one are exercised). The kernel must give
// what the JIT's own operator gives on a copy of the same inputs: equal
// outputs (or the same failure), an equal mutated `self` for in-place ops
// whose output is `self` itself, and a view exactly when the JIT returns one.
#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ATen/ATen.h"
#include "c10/core/InferenceMode.h"
#include "gtest/gtest.h"
#include "ops/core/fallback.h"
#include "ops/core/out_variant_test_support.h"
#include "ops/core/registry.h"
#include "ops/kernels.h"
#include "rapidcheck.h"

namespace static_runtime {
namespace {

using testing::Draw;
using Inputs = std::vector<c10::IValue>;
using Generator = std::function<Inputs(Draw&)>;

const std::vector<at::ScalarType> kFloats = {at::kFloat, at::kDouble};
const std::vector<at::ScalarType> kNumbers = {at::kFloat, at::kDouble, at::kLong};

struct Case {
  std::string name;
  std::string overload;
  Generator inputs;
  bool in_place = false;  // output 0 is input 0, written in place
};

at::Tensor AnyTensor(Draw& d, int64_t min_rank, const std::vector<at::ScalarType>& dtypes) {
  return d.Tensor(d.Shape(d.Int(min_rank, 3), 1, 4), d.OneOf(dtypes));
}
int64_t DimOf(Draw& d, const at::Tensor& t) {
  return t.dim() == 0 ? 0 : d.Int(-t.dim(), t.dim() - 1);
}
c10::IValue SmallScalar(Draw& d, at::ScalarType dtype) {
  if (dtype == at::kLong) return d.Int(-3, 3);
  return d.Int(-8, 8) / 4.0;
}

std::vector<Case> ViewCases() {
  std::vector<Case> cases;
  auto add = [&](std::string name, std::string overload, Generator g) {
    cases.push_back({std::move(name), std::move(overload), std::move(g)});
  };
  add("aten::slice", "Tensor", [](Draw& d) -> Inputs {
    at::Tensor t = AnyTensor(d, 1, kNumbers);
    auto bound = [&]() { return d.Bool() ? c10::IValue() : c10::IValue(d.Int(-5, 5)); };
    return {t, DimOf(d, t), bound(), bound(), d.Int(1, 3)};
  });
  add("aten::select", "int", [](Draw& d) -> Inputs {
    at::Tensor t = AnyTensor(d, 1, kNumbers);
    const int64_t dim = DimOf(d, t);
    return {t, dim, d.Int(-t.size(dim), t.size(dim))};  // sometimes out of range
  });
  add("aten::narrow", "", [](Draw& d) -> Inputs {
    at::Tensor t = AnyTensor(d, 1, kNumbers);
    const int64_t dim = DimOf(d, t);
    const int64_t start = d.Int(0, t.size(dim));
    return {t, dim, start, d.Int(0, t.size(dim) - start)};
  });
  add("aten::squeeze", "", [](Draw& d) -> Inputs { return {AnyTensor(d, 0, kNumbers)}; });
  add("aten::squeeze", "dim", [](Draw& d) -> Inputs {
    at::Tensor t = AnyTensor(d, 1, kNumbers);
    return {t, DimOf(d, t)};
  });
  add("aten::unsqueeze", "", [](Draw& d) -> Inputs {
    at::Tensor t = AnyTensor(d, 0, kNumbers);
    return {t, d.Int(-t.dim() - 1, t.dim())};
  });
  add("aten::transpose", "int", [](Draw& d) -> Inputs {
    at::Tensor t = AnyTensor(d, 1, kNumbers);
    return {t, DimOf(d, t), DimOf(d, t)};
  });
  add("aten::t", "",
      [](Draw& d) -> Inputs { return {d.Tensor(d.Shape(d.Int(0, 2), 1, 4), at::kFloat)}; });
  add("aten::numpy_T", "", [](Draw& d) -> Inputs { return {AnyTensor(d, 0, kNumbers)}; });
  add("aten::permute", "", [](Draw& d) -> Inputs {
    at::Tensor t = AnyTensor(d, 0, kNumbers);
    std::vector<int64_t> dims(t.dim());
    for (int64_t i = 0; i < t.dim(); ++i) dims[i] = i;
    for (int64_t i = t.dim() - 1; i > 0; --i) std::swap(dims[i], dims[d.Int(0, i)]);
    return {t, c10::List<int64_t>(dims)};
  });
  add("aten::movedim", "int", [](Draw& d) -> Inputs {
    at::Tensor t = AnyTensor(d, 1, kNumbers);
    return {t, DimOf(d, t), DimOf(d, t)};
  });
  add("aten::expand", "", [](Draw& d) -> Inputs {
    at::Tensor t = d.Tensor(d.Shape(d.Int(0, 2), 1, 1), at::kFloat);
    std::vector<int64_t> size;
    for (int64_t i = 0; i < t.dim() + d.Int(0, 1); ++i) size.push_back(d.Int(-1, 3));
    return {t, c10::List<int64_t>(size), false};
  });
  add("aten::expand_as", "", [](Draw& d) -> Inputs {
    return {d.Tensor({1, d.Int(1, 2)}, at::kFloat), d.Tensor({3, 2}, at::kFloat)};
  });
  add("aten::view", "", [](Draw& d) -> Inputs {
    at::Tensor t = AnyTensor(d, 1, kNumbers);
    return {t, c10::List<int64_t>({d.Bool() ? -1 : t.numel()})};
  });
  add("aten::view_as", "", [](Draw& d) -> Inputs {
    at::Tensor t = AnyTensor(d, 1, kNumbers);
    return {t, at::zeros({t.numel()})};
  });
  add("aten::reshape", "", [](Draw& d) -> Inputs {
    at::Tensor t = AnyTensor(d, 1, kNumbers);
    return {t, c10::List<int64_t>({d.Bool() ? -1 : t.numel(), 1})};
  });
  add("aten::reshape_as", "", [](Draw& d) -> Inputs {
    at::Tensor t = AnyTensor(d, 1, kNumbers);
    return {t, at::zeros({1, t.numel()})};
  });
  add("aten::flatten", "using_ints", [](Draw& d) -> Inputs {
    at::Tensor t = AnyTensor(d, 1, kNumbers);
    const int64_t start = d.Int(0, t.dim() - 1);
    return {t, start, d.Int(start, t.dim() - 1)};
  });
  add("aten::unflatten", "int", [](Draw& d) -> Inputs {
    at::Tensor t = d.Tensor({d.Int(1, 3), 6}, at::kFloat);
    return {t, 1, c10::List<int64_t>({d.Bool() ? 2 : 3, -1})};
  });
  add("aten::diagonal", "", [](Draw& d) -> Inputs {
    at::Tensor t = AnyTensor(d, 2, kNumbers);
    int64_t dim1 = DimOf(d, t);
    int64_t dim2 = DimOf(d, t);
    return {t, d.Int(-2, 2), dim1, dim2};
  });
  add("aten::detach", "", [](Draw& d) -> Inputs { return {AnyTensor(d, 0, kNumbers)}; });
  add("aten::alias", "", [](Draw& d) -> Inputs { return {AnyTensor(d, 0, kNumbers)}; });
  add("aten::chunk", "", [](Draw& d) -> Inputs {
    at::Tensor t = AnyTensor(d, 1, kNumbers);
    return {t, d.Int(1, 3), DimOf(d, t)};
  });
  add("aten::split", "Tensor", [](Draw& d) -> Inputs {
    at::Tensor t = AnyTensor(d, 1, kNumbers);
    return {t, d.Int(1, 3), DimOf(d, t)};
  });
  add("aten::split", "sizes", [](Draw& d) -> Inputs {
    at::Tensor t = d.Tensor({d.Int(1, 3), 4}, at::kFloat);
    return {t, c10::List<int64_t>({1, d.Bool() ? 3 : 2}), 1};  // sometimes not summing up
  });
  add("aten::split_with_sizes", "", [](Draw& d) -> Inputs {
    at::Tensor t = d.Tensor({4, d.Int(1, 3)}, at::kFloat);
    const int64_t first = d.Int(0, 4);
    // Sizes summing to 4, or (sometimes) not: an error in both.
    return {t, c10::List<int64_t>({first, d.Int(0, 4) == 0 ? 0 : 4 - first}), 0};
  });
  add("aten::unbind", "int", [](Draw& d) -> Inputs {
    at::Tensor t = AnyTensor(d, 1, kNumbers);
    return {t, DimOf(d, t)};
  });
  return cases;
}

std::vector<Case> InPlaceCases() {
  std::vector<Case> cases;
  auto add = [&](std::string name, std::string overload, Generator g) {
    cases.push_back({std::move(name), std::move(overload), std::move(g), /*in_place=*/true});
  };
  // (self, other tensor broadcasting to self[, alpha]) with dtypes that may
  // promote beyond self's (an error, as in the JIT).
  auto tensor_other = [](bool alpha, const std::vector<at::ScalarType>& dtypes) {
    return [alpha, dtypes](Draw& d) -> Inputs {
      at::Tensor self = AnyTensor(d, 0, dtypes);
      Inputs inputs = {self, d.Tensor(d.BroadcastableTo(self.sizes().vec()), d.OneOf(dtypes))};
      if (alpha) inputs.push_back(d.Int(-2, 2));
      return inputs;
    };
  };
  auto scalar_other = [](bool alpha, const std::vector<at::ScalarType>& dtypes) {
    return [alpha, dtypes](Draw& d) -> Inputs {
      at::Tensor self = AnyTensor(d, 0, dtypes);
      Inputs inputs = {self, SmallScalar(d, d.OneOf(dtypes))};
      if (alpha) inputs.push_back(d.Int(-2, 2));
      return inputs;
    };
  };
  for (const char* name : {"aten::add_", "aten::sub_"}) {
    add(name, "Tensor", tensor_other(true, kNumbers));
    add(name, "Scalar", scalar_other(true, kNumbers));
  }
  add("aten::mul_", "Tensor", tensor_other(false, kNumbers));
  add("aten::mul_", "Scalar", scalar_other(false, kNumbers));
  add("aten::div_", "Tensor", tensor_other(false, kFloats));
  add("aten::div_", "Scalar", scalar_other(false, kFloats));
  add("aten::div_", "Tensor_mode", [=](Draw& d) -> Inputs {
    Inputs inputs = tensor_other(false, kNumbers)(d);
    inputs.push_back(d.OneOf(std::vector<std::string>{"trunc", "floor"}));
    return inputs;
  });
  add("aten::pow_", "Scalar", scalar_other(false, kFloats));
  add("aten::pow_", "Tensor", tensor_other(false, kFloats));
  auto unary = [](const std::vector<at::ScalarType>& dtypes) {
    return [dtypes](Draw& d) -> Inputs { return {AnyTensor(d, 0, dtypes)}; };
  };
  for (const char* name : {"aten::relu_", "aten::neg_", "aten::zero_", "aten::abs_"}) {
    add(name, "", unary(kNumbers));
  }
  for (const char* name :
       {"aten::sigmoid_", "aten::tanh_", "aten::exp_", "aten::log_", "aten::sqrt_", "aten::rsqrt_",
        "aten::floor_", "aten::ceil_", "aten::reciprocal_", "aten::silu_", "aten::hardswish_",
        "aten::hardsigmoid_", "aten::round_"}) {
    add(name, "", unary(kFloats));
  }
  add("aten::gelu_", "", [](Draw& d) -> Inputs {
    return {AnyTensor(d, 0, kFloats), d.Bool() ? "tanh" : "none"};
  });
  add("aten::clamp_", "", [](Draw& d) -> Inputs {
    auto bound = [&]() { return d.Bool() ? c10::IValue() : SmallScalar(d, at::kFloat); };
    return {AnyTensor(d, 0, kFloats), bound(), bound()};
  });
  add("aten::clamp_min_", "", scalar_other(false, kFloats));
  add("aten::clamp_max_", "", scalar_other(false, kFloats));
  add("aten::hardtanh_", "", [](Draw& d) -> Inputs {
    return {AnyTensor(d, 0, kFloats), -1.0, d.Int(0, 2) / 2.0};
  });
  add("aten::leaky_relu_", "", scalar_other(false, kFloats));
  add("aten::elu_", "", [](Draw& d) -> Inputs {
    return {AnyTensor(d, 0, kFloats), 1.0, d.Int(1, 2) * 1.0, 1.0};
  });
  add("aten::threshold_", "", [](Draw& d) -> Inputs {
    return {AnyTensor(d, 0, kFloats), SmallScalar(d, at::kFloat), SmallScalar(d, at::kFloat)};
  });
  add("aten::fill_", "Scalar", scalar_other(false, kNumbers));
  add("aten::fill_", "Tensor", [](Draw& d) -> Inputs {
    return {AnyTensor(d, 0, kNumbers), d.Tensor({}, d.OneOf(kNumbers))};
  });
  add("aten::masked_fill_", "Scalar", [](Draw& d) -> Inputs {
    at::Tensor self = AnyTensor(d, 0, kNumbers);
    return {self, d.Tensor(d.BroadcastableTo(self.sizes().vec()), at::kBool),
            SmallScalar(d, at::kFloat)};
  });
  add("aten::masked_fill_", "Tensor", [](Draw& d) -> Inputs {
    at::Tensor self = AnyTensor(d, 0, kNumbers);
    return {self, d.Tensor(d.BroadcastableTo(self.sizes().vec()), at::kBool),
            d.Tensor({}, d.OneOf(kNumbers))};
  });
  add("aten::copy_", "", [](Draw& d) -> Inputs {
    at::Tensor self = AnyTensor(d, 0, kNumbers);
    return {self, d.Tensor(d.BroadcastableTo(self.sizes().vec()), d.OneOf(kNumbers)), false};
  });
  add("aten::index_put_", "", [](Draw& d) -> Inputs {
    at::Tensor self = d.Tensor({d.Int(1, 4), 3}, d.OneOf(kNumbers));
    at::Tensor index = d.Indices({d.Int(0, 3)}, 0, self.size(0));
    c10::List<c10::optional<at::Tensor>> indices;
    indices.push_back(index);
    return {self, indices, d.Tensor({d.Bool() ? 1 : index.size(0), 3}, self.scalar_type()),
            d.Bool()};
  });
  return cases;
}

std::vector<Case> MiscCases() {
  std::vector<Case> cases;
  auto add = [&](std::string name, std::string overload, Generator g) {
    cases.push_back({std::move(name), std::move(overload), std::move(g)});
  };
  for (const char* overload : {"float", "int", "bool"}) {
    add("aten::tensor", overload, [overload = std::string(overload)](Draw& d) -> Inputs {
      c10::IValue value = overload == "float" ? c10::IValue(d.Int(-8, 8) / 4.0)
                          : overload == "int" ? c10::IValue(d.Int(-8, 8))
                                              : c10::IValue(d.Bool());
      c10::IValue dtype = d.Bool() ? c10::IValue() : c10::IValue(d.OneOf(kNumbers));
      return {value, dtype, c10::IValue(), false};
    });
  }
  for (const char* name : {"prim::is_nested", "prim::requires_grad", "aten::is_floating_point"}) {
    add(name, "", [](Draw& d) -> Inputs {
      at::Tensor t = d.Tensor({d.Int(0, 3)}, d.OneOf(kNumbers));
      if (t.is_floating_point() && d.Bool()) t.requires_grad_();
      return {t};
    });
  }
  add("aten::is_grad_enabled", "", [](Draw&) -> Inputs { return {}; });
  add("aten::len", "str", [](Draw& d) -> Inputs { return {std::string(d.Int(0, 5), 'x')}; });
  // Lists of ints sliced with bounds inside and outside them, negative
  // steps and the zero step (an error).
  add("aten::slice", "t", [](Draw& d) -> Inputs {
    c10::List<int64_t> list;
    for (int64_t i = d.Int(0, 6); i > 0; --i) list.push_back(d.Int(-9, 9));
    auto bound = [&]() { return d.Bool() ? c10::IValue() : c10::IValue(d.Int(-8, 8)); };
    return {list, bound(), bound(),
            d.Int(0, 5) == 0 ? int64_t{0} : d.OneOf<int64_t>({1, 2, -1, -3})};
  });
  // Contractions of attention, products and reductions, with and without a
  // contraction path; sometimes with a wrong operand count (ATen's error).
  add("aten::einsum", "", [](Draw& d) -> Inputs {
    const int64_t b = d.Int(1, 2), q = d.Int(1, 4), k = d.Int(1, 4), e = d.Int(1, 3);
    const at::ScalarType dtype = d.OneOf(kFloats);
    switch (d.Int(0, 3)) {
      case 0:
        return {std::string("bqd,bkd->bqk"),
                std::vector<at::Tensor>{d.Tensor({b, q, e}, dtype), d.Tensor({b, k, e}, dtype)},
                d.Bool() ? c10::IValue() : c10::IValue(c10::List<int64_t>({0, 1}))};
      case 1:
        return {std::string("ij,jk,kl->il"),
                std::vector<at::Tensor>{d.Tensor({q, e}, dtype), d.Tensor({e, k}, dtype),
                                        d.Tensor({k, b}, dtype)},
                c10::IValue()};
      case 2:
        return {std::string("ii->i"), std::vector<at::Tensor>{d.Tensor({q, q}, dtype)},
                c10::IValue()};
      default:
        return {std::string("ij,jk->ik"), std::vector<at::Tensor>{d.Tensor({q, e}, dtype)},
                c10::IValue()};
    }
  });
  // Lists of ints repeated (n <= 0 gives none), copied, and a new dict.
  auto int_list = [](Draw& d) {
    c10::List<int64_t> list;
    for (int64_t i = d.Int(0, 4); i > 0; --i) list.push_back(d.Int(-9, 9));
    return list;
  };
  add("aten::mul", "left_t", [=](Draw& d) -> Inputs { return {int_list(d), d.Int(-2, 3)}; });
  add("aten::mul", "right_", [=](Draw& d) -> Inputs { return {d.Int(-2, 3), int_list(d)}; });
  add("aten::copy", "t", [=](Draw& d) -> Inputs { return {int_list(d)}; });
  add("aten::dict", "", [](Draw&) -> Inputs { return {}; });
  // Membership in dicts of str and int keys.
  add("aten::__contains__", "str", [](Draw& d) -> Inputs {
    c10::Dict<std::string, int64_t> dict;
    for (int64_t i = d.Int(0, 3); i > 0; --i) dict.insert(std::string(1, 'a' + d.Int(0, 4)), i);
    return {dict, std::string(1, 'a' + d.Int(0, 4))};
  });
  add("aten::__contains__", "int", [](Draw& d) -> Inputs {
    c10::Dict<int64_t, at::Tensor> dict;
    for (int64_t i = d.Int(0, 3); i > 0; --i) dict.insert(d.Int(-3, 3), at::ones({i}));
    return {dict, d.Int(-3, 3)};
  });
  // Loop helpers of range(lo, hi, step), a step of 0 included (the JIT's
  // error), and a negated number.
  add("aten::__range_length", "", [](Draw& d) -> Inputs {
    return {d.Int(-6, 6), d.Int(-6, 6), d.Int(-3, 3)};
  });
  add("aten::__derive_index", "", [](Draw& d) -> Inputs {
    return {d.Int(0, 5), d.Int(-6, 6), d.Int(-3, 3)};
  });
  add("aten::neg", "Scalar", [](Draw& d) -> Inputs {
    return {d.Bool() ? c10::IValue(d.Int(-5, 5)) : c10::IValue(0.25 * d.Int(-5, 5))};
  });
  // A tensor used as a number: 0-dim of several dtypes, or not 0-dim (the
  // JIT's errors, as is a float tensor where an int is expected).
  for (const char* name : {"aten::IntImplicit", "aten::FloatImplicit", "aten::ScalarImplicit"}) {
    add(name, "", [](Draw& d) -> Inputs {
      const at::ScalarType dtype =
          d.OneOf<at::ScalarType>({at::kLong, at::kInt, at::kFloat, at::kDouble, at::kBool});
      return {d.Tensor(d.Int(0, 4) == 0 ? std::vector<int64_t>{2} : std::vector<int64_t>{}, dtype)};
    });
  }
  // The indices of nonzero elements, per dimension.
  add("aten::where", "", [](Draw& d) -> Inputs {
    return {d.Tensor(d.Shape(d.Int(0, 3), 0, 4), d.OneOf<at::ScalarType>({at::kBool, at::kFloat}))};
  });
  for (const char* name : {"aten::eq", "aten::ne"}) {
    add(name, "str", [](Draw& d) -> Inputs {
      const std::vector<std::string> words = {"", "cpu", "cuda", "x"};
      return {d.OneOf(words), d.OneOf(words)};
    });
  }
  add("prim::type", "", [](Draw&) -> Inputs { return {c10::Device(c10::kCPU)}; });
  add("aten::item", "", [](Draw& d) -> Inputs {
    return {d.Tensor(d.Shape(d.Int(0, 2), 1, d.Int(0, 4) == 0 ? 2 : 1), d.OneOf(kNumbers))};
  });
  add("aten::as_tensor", "", [](Draw& d) -> Inputs {
    return {d.Tensor({d.Int(0, 3)}, d.OneOf(kNumbers)),
            d.Bool() ? c10::IValue() : c10::IValue(d.OneOf(kNumbers)),
            d.Bool() ? c10::IValue() : c10::IValue(c10::Device(c10::kCPU))};
  });
  // Indices inside the self tensor, sometimes one past it (ATen's error).
  add("aten::scatter", "src", [](Draw& d) -> Inputs {
    const at::Tensor self = d.Tensor({d.Int(1, 3), d.Int(1, 4)}, at::kFloat);
    const int64_t dim = d.Int(0, 1);
    const std::vector<int64_t> shape = {d.Int(1, self.size(0)), d.Int(1, self.size(1))};
    const int64_t high = self.size(dim) + (d.Int(0, 9) == 0 ? 1 : 0);
    return {self, dim, d.Indices(shape, 0, high), d.Tensor(shape, at::kFloat)};
  });
  // Padded batches of random layouts and dtypes; lengths sorted or not
  // (ATen's error), sometimes 0 or longer than the batch.
  add("aten::_pack_padded_sequence", "", [](Draw& d) -> Inputs {
    const bool batch_first = d.Bool();
    const int64_t batch = d.Int(1, 4), steps = d.Int(1, 6);
    std::vector<int64_t> shape = {steps, batch};
    if (batch_first) std::swap(shape[0], shape[1]);
    for (int64_t i = d.Int(0, 2); i > 0; --i) shape.push_back(d.Int(1, 3));
    std::vector<int64_t> lengths;
    for (int64_t b = 0; b < batch; ++b) lengths.push_back(d.Int(1, steps));
    if (d.Int(0, 3) > 0) std::sort(lengths.rbegin(), lengths.rend());
    if (d.Int(0, 9) == 0) lengths[d.Int(0, batch - 1)] = d.OneOf<int64_t>({0, steps + 1});
    return {d.Tensor(shape, d.OneOf(kNumbers)), at::tensor(lengths), batch_first};
  });
  add("aten::_native_multi_head_attention", "", [](Draw& d) -> Inputs {
    const int64_t heads = d.Int(1, 3);
    const int64_t embed = heads * d.Int(1, 3);
    const int64_t batch = d.Int(1, 3), length = d.Int(1, 4);
    const at::Tensor x = d.Tensor({batch, length, embed}, at::kFloat);
    c10::IValue mask;
    c10::IValue mask_type;
    if (d.Bool()) {
      mask = at::rand({batch, length}) > 0.7;
      mask_type = int64_t{1};
    }
    return {x,
            x,
            x,
            embed,
            heads,
            d.Tensor({3 * embed, embed}, at::kFloat),
            d.Tensor({3 * embed}, at::kFloat),
            d.Tensor({embed, embed}, at::kFloat),
            d.Tensor({embed}, at::kFloat),
            mask,
            d.Bool(),
            d.Bool(),
            mask_type};
  });
  add("aten::contiguous", "", [](Draw& d) -> Inputs {
    at::Tensor t = AnyTensor(d, 1, kNumbers);
    if (t.dim() >= 2 && d.Bool()) t = t.transpose(0, 1);
    return {t, d.Bool() ? at::MemoryFormat::Contiguous : at::MemoryFormat::Preserve};
  });
  add("aten::to", "prim_Device", [](Draw& d) -> Inputs {
    const c10::IValue device = d.Bool() ? c10::IValue(c10::Device(c10::kCPU)) : c10::IValue();
    const c10::IValue dtype = d.Bool() ? c10::IValue(d.OneOf(kNumbers)) : c10::IValue();
    // No copy without a device or a dtype: the JIT then reads the absent
    // dtype (undefined; an assertion in checked builds).
    const bool copy = (!device.isNone() || !dtype.isNone()) && d.Bool();
    return {AnyTensor(d, 0, kNumbers), device, dtype, d.Bool(), copy};
  });
  add("aten::to", "device", [](Draw& d) -> Inputs {
    at::Tensor t = AnyTensor(d, 1, kNumbers);
    if (t.dim() >= 2 && d.Bool()) t = t.transpose(0, 1);
    return {t,
            c10::Device(c10::kCPU),
            d.OneOf(kNumbers),
            d.Bool(),
            d.Bool(),
            d.OneOf<c10::IValue>(
                {c10::IValue(), at::MemoryFormat::Contiguous, at::MemoryFormat::Preserve})};
  });
  add("aten::type_as", "", [](Draw& d) -> Inputs {
    return {AnyTensor(d, 0, kNumbers), AnyTensor(d, 0, kNumbers)};
  });
  add("aten::add", "str", [](Draw& d) -> Inputs {
    return {std::string(d.Int(0, 3), 'a'), std::string(d.Int(0, 3), 'b')};
  });
  add("aten::add", "t", [](Draw& d) -> Inputs {
    return {c10::List<int64_t>(std::vector<int64_t>(d.Int(0, 3), 1)),
            c10::List<int64_t>(std::vector<int64_t>(d.Int(0, 3), 2))};
  });
  add("aten::_transformer_encoder_layer_fwd", "", [](Draw& d) -> Inputs {
    const int64_t heads = d.Int(1, 2);
    const int64_t embed = 2 * heads * d.Int(1, 2);
    const int64_t ffn = d.Int(1, 6);
    auto t = [&](std::vector<int64_t> shape) { return d.Tensor(shape, at::kFloat); };
    return {t({d.Int(1, 3), d.Int(1, 4), embed}),
            embed,
            heads,
            t({3 * embed, embed}),
            t({3 * embed}),
            t({embed, embed}),
            t({embed}),
            d.Bool(),
            d.Bool(),
            1e-5,
            t({embed}),
            t({embed}),
            t({embed}),
            t({embed}),
            t({ffn, embed}),
            t({ffn}),
            t({embed, ffn}),
            t({embed}),
            c10::IValue(),
            c10::IValue()};
  });
  add("aten::lstm", "input", [](Draw& d) -> Inputs {
    const int64_t batch = d.Int(1, 3);
    const int64_t hidden = d.Int(1, 4);
    const int64_t features = d.Int(1, 4);
    const bool batch_first = d.Bool();
    at::Tensor x = batch_first ? d.Tensor({batch, d.Int(1, 4), features}, at::kFloat)
                               : d.Tensor({d.Int(1, 4), batch, features}, at::kFloat);
    c10::List<at::Tensor> hx(
        {d.Tensor({1, batch, hidden}, at::kFloat), d.Tensor({1, batch, hidden}, at::kFloat)});
    c10::List<at::Tensor> params(
        {d.Tensor({4 * hidden, features}, at::kFloat), d.Tensor({4 * hidden, hidden}, at::kFloat),
         d.Tensor({4 * hidden}, at::kFloat), d.Tensor({4 * hidden}, at::kFloat)});
    return {x, hx, params, true, 1, 0.0, false, false, batch_first};
  });
  return cases;
}

// A copy of `value` whose tensors own their memory (the kernel under test
// writes into some of them).
c10::IValue DeepCopy(const c10::IValue& value) {
  if (value.isTensor()) return value.toTensor().clone();
  if (value.isList()) {
    c10::impl::GenericList copy(value.toList().elementType());
    for (const c10::IValue& element : value.toListRef()) copy.push_back(DeepCopy(element));
    return copy;
  }
  return value;
}

// Copies of `inputs`; with `inference`, made inside inference mode, so they
// are inference tensors and the kernels take their direct path.
Inputs Copies(const Inputs& inputs, bool inference) {
  c10::InferenceMode guard(inference);
  Inputs copies;
  for (const c10::IValue& input : inputs) copies.push_back(DeepCopy(input));
  return copies;
}

// testing::Difference, element by element for lists.
std::string Compare(const c10::IValue& expected, const c10::IValue& actual) {
  if (!expected.isList() || !actual.isList()) return testing::Difference(expected, actual);
  c10::ArrayRef<c10::IValue> e = expected.toListRef();
  c10::ArrayRef<c10::IValue> a = actual.toListRef();
  if (e.size() != a.size()) return "lists of different lengths";
  for (size_t i = 0; i < e.size(); ++i) {
    std::string difference = Compare(e[i], a[i]);
    if (!difference.empty()) return "element " + std::to_string(i) + ": " + difference;
  }
  return "";
}

// Whether `output` (or, for a list, its first element) views `input`.
bool SharesStorage(const c10::IValue& output, const c10::IValue& input) {
  if (output.isList() && !output.toListRef().empty()) {
    return SharesStorage(output.toListRef()[0], input);
  }
  if (!output.isTensor() || !input.isTensor()) return false;
  const at::Tensor& out = output.toTensor();
  return out.defined() && out.has_storage() && input.toTensor().has_storage() &&
         out.storage().is_alias_of(input.toTensor().storage());
}

std::string RunKernel(const Kernel& kernel, Inputs& inputs, size_t num_outputs, Inputs& outputs) {
  testing::Slots slots(num_outputs);
  const std::string error = slots.Run(kernel, inputs);
  for (size_t i = 0; i < num_outputs; ++i) outputs.push_back(slots.Output(i));
  return error;
}

class NativeTensorOp : public ::testing::TestWithParam<Case> {};

TEST_P(NativeTensorOp, MatchesTheJitInAndOutOfInferenceMode) {
  const Case& op = GetParam();
  int compared = 0;
  const bool ok = rc::check(op.name + "." + op.overload, [&] {
    Draw draw;
    const Inputs inputs = op.inputs(draw);
    const bool inference = draw.Bool();
    testing::SingleNode single = testing::MakeNode(op.name, op.overload, inputs, 1);
    auto selected = GlobalKernels().Find(single.node, /*allow_out_variants=*/false);
    RC_ASSERT(selected.has_value());
    RC_ASSERT(selected->kind == NodeKind::kNative);
    absl::StatusOr<Kernel> jit = MakeFallbackKernel(single.node);
    RC_ASSERT(jit.ok());
    const size_t num_outputs = single.node->outputs().size();

    Inputs jit_inputs = Copies(inputs, inference);
    Inputs our_inputs = Copies(inputs, inference);
    Inputs jit_outputs;
    Inputs our_outputs;
    std::string jit_error;
    std::string our_error;
    {
      c10::InferenceMode guard(inference);
      jit_error = RunKernel(*jit, jit_inputs, num_outputs, jit_outputs);
      our_error = RunKernel(selected->kernel, our_inputs, num_outputs, our_outputs);
    }
    RC_ASSERT(jit_error.empty() == our_error.empty());
    if (!jit_error.empty()) return;
    ++compared;
    for (size_t i = 0; i < num_outputs; ++i) {
      const std::string difference = Compare(jit_outputs[i], our_outputs[i]);
      if (!difference.empty()) RC_FAIL("output " + std::to_string(i) + ": " + difference);
      if (!jit_inputs.empty()) {  // ops without inputs (is_grad_enabled) alias nothing
        RC_ASSERT(SharesStorage(jit_outputs[i], jit_inputs[0]) ==
                  SharesStorage(our_outputs[i], our_inputs[0]));
      }
    }
    for (size_t i = 0; i < inputs.size(); ++i) {
      const std::string difference = Compare(jit_inputs[i], our_inputs[i]);
      if (!difference.empty()) RC_FAIL("input " + std::to_string(i) + ": " + difference);
    }
    if (op.in_place) {
      RC_ASSERT(our_outputs[0].toTensor().unsafeGetTensorImpl() ==
                our_inputs[0].toTensor().unsafeGetTensorImpl());
    }
  });
  EXPECT_TRUE(ok);
  EXPECT_GT(compared, 0) << "every case failed in the JIT too";
}

std::vector<Case> AllCases() {
  std::vector<Case> cases = ViewCases();
  for (auto family : {InPlaceCases, MiscCases}) {
    for (Case& c : family()) cases.push_back(std::move(c));
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Kernels, NativeTensorOp, ::testing::ValuesIn(AllCases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           std::string name = info.param.name.substr(6) + "_" + info.param.overload;
                           for (char& c : name) {
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace static_runtime
