// Out-variant kernels for linear algebra: mm, addmm, bmm, baddbmm, matmul,
// linear. dot and mv stay in fallback: LibTorch 1.13's out forms of them
// compute into a temporary and copy.
#include "ATen/ATen.h"
#include "ATen/CPUFunctions.h"
#include "ops/out_variant.h"

namespace static_runtime {
namespace {

using TwoFn = at::Tensor (*)(const at::Tensor&, const at::Tensor&);
using TwoOutFn = at::Tensor& (*)(at::Tensor&, const at::Tensor&, const at::Tensor&);

void Product(const char* name, TwoFn fn, TwoOutFn out_fn) {
  RegisterOut(name, "", [fn, out_fn](NodeIO& io) {
    const at::Tensor& a = TensorArg(io, 0);
    const at::Tensor& b = TensorArg(io, 1);
    WriteOutput(io, 0, a.scalar_type(), [&] { return fn(a, b); },
                [&](at::Tensor& out) { out_fn(out, a, b); });
  });
}

// (self, m1, m2, *, beta, alpha): addmm, baddbmm.
using AddFn = at::Tensor (*)(const at::Tensor&, const at::Tensor&, const at::Tensor&,
                             const at::Scalar&, const at::Scalar&);
using AddOutFn = at::Tensor& (*)(at::Tensor&, const at::Tensor&, const at::Tensor&,
                                 const at::Tensor&, const at::Scalar&, const at::Scalar&);
void AddProduct(const char* name, AddFn fn, AddOutFn out_fn) {
  RegisterOut(name, "", [fn, out_fn](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    const at::Tensor& m1 = TensorArg(io, 1);
    const at::Tensor& m2 = TensorArg(io, 2);
    const at::Scalar beta = io.Input(3).toScalar();
    const at::Scalar alpha = io.Input(4).toScalar();
    WriteOutput(io, 0, m1.scalar_type(), [&] { return fn(self, m1, m2, beta, alpha); },
                [&](at::Tensor& out) { out_fn(out, self, m1, m2, beta, alpha); });
  });
}

const bool kRegistered = [] {
  Product("aten::mm", at::mm, at::cpu::mm_out);
  Product("aten::bmm", at::bmm, at::cpu::bmm_out);
  // matmul writes directly only where it is one mm or bmm; other shapes
  // take the functional form (LibTorch's matmul_out would compute into a
  // temporary and copy).
  RegisterOut("aten::matmul", "", [](NodeIO& io) {
    const at::Tensor& a = TensorArg(io, 0);
    const at::Tensor& b = TensorArg(io, 1);
    const bool mm = a.dim() == 2 && b.dim() == 2;
    const bool bmm = a.dim() == 3 && b.dim() == 3 && a.size(0) == b.size(0);
    if (!mm && !bmm) {
      io.Output(0) = at::matmul(a, b);
      return;
    }
    WriteOutput(io, 0, a.scalar_type(), [&] { return at::matmul(a, b); },
                [&](at::Tensor& out) { mm ? at::cpu::mm_out(out, a, b) : at::cpu::bmm_out(out, a, b); });
  });
  AddProduct("aten::addmm", at::addmm, at::cpu::addmm_out);
  AddProduct("aten::baddbmm", at::baddbmm, at::cpu::baddbmm_out);
  RegisterOut("aten::linear", "", [](NodeIO& io) {
    const at::Tensor& input = TensorArg(io, 0);
    const at::Tensor& weight = TensorArg(io, 1);
    const c10::optional<at::Tensor> bias = OptionalTensorArg(io, 2);
    WriteOutput(io, 0, input.scalar_type(), [&] { return at::linear(input, weight, bias); },
                [&](at::Tensor& out) { at::linear_out(out, input, weight, bias); });
  });
  return true;
}();

}  // namespace
}  // namespace static_runtime
