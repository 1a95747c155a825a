#include "ops/linalg/out_variant_specs.h"

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

std::map<std::string, Spec> LinalgOutVariantSpecs() {
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

}  // namespace specs
}  // namespace testing
}  // namespace static_runtime
