// Out-variant kernels for linear algebra: mm, addmm, bmm, baddbmm, matmul,
// linear. dot and mv stay in fallback: LibTorch 1.13's out forms of them
// compute into a temporary and copy.
#include "ATen/ATen.h"
#include "ATen/CPUFunctions.h"
#include "ATen/NativeFunctions.h"
#include "c10/util/accumulate.h"
#include "ops/core/out_variant.h"
#include "ops/core/wrapped_scalar.h"
#include "ops/linalg/batched_gemm.h"

namespace static_runtime {
namespace {

using TwoFn = at::Tensor (*)(const at::Tensor&, const at::Tensor&);
using TwoOutFn = at::Tensor& (*)(at::Tensor&, const at::Tensor&, const at::Tensor&);

// at::cpu::bmm_out, with the batch-by-batch gemm calls made directly where
// ATen would make them (ops/linalg/batched_gemm.h).
at::Tensor& BmmOut(at::Tensor& out, const at::Tensor& a, const at::Tensor& b) {
  if (CpuKernelsServe(a, b)) {
    if (const std::optional<BmmPlan> plan = PlanBmm(a, b)) {
      at::native::resize_(out, {a.size(0), a.size(1), b.size(2)});
      if (out.is_contiguous()) {
        BmmInto(*plan, a, b, out);
        return out;
      }
    }
  }
  return at::cpu::bmm_out(out, a, b);
}

// at::cpu::baddbmm_out, likewise where beta and alpha are 1 (the masked
// attention scores of nn.MultiheadAttention): self copied into the result,
// then the gemm calls with beta 1 that ATen makes.
at::Tensor& BaddbmmOut(at::Tensor& out, const at::Tensor& self, const at::Tensor& a,
                       const at::Tensor& b, const at::Scalar& beta, const at::Scalar& alpha) {
  if (CpuKernelsServe(self, a, b) && IsOne(beta) && IsOne(alpha) && a.dim() == 3 && b.dim() == 3 &&
      self.scalar_type() == a.scalar_type()) {
    const std::vector<int64_t> sizes = {a.size(0), a.size(1), b.size(2)};
    if (at::is_expandable_to(self.sizes(), sizes) && !out.is_same(self)) {
      if (const std::optional<BmmPlan> plan = PlanBmm(a, b, /*accumulate=*/true)) {
        at::native::resize_(out, sizes);
        if (out.is_contiguous()) {
          out.copy_(self.expand(sizes));
          BmmInto(*plan, a, b, out);
          return out;
        }
      }
    }
  }
  return at::cpu::baddbmm_out(out, self, a, b, beta, alpha);
}

void Product(KernelRegistry& registry, const char* name, TwoFn fn, TwoOutFn out_fn) {
  registry.Add(OutVariant(name, "", [fn, out_fn](NodeIO& io) {
    const at::Tensor& a = TensorArg(io, 0);
    const at::Tensor& b = TensorArg(io, 1);
    WriteOutput(
        io, 0, a.scalar_type(), [&] { return fn(a, b); },
        [&](at::Tensor& out) { out_fn(out, a, b); });
  }));
}

// (self, m1, m2, *, beta, alpha): addmm, baddbmm.
using AddFn = at::Tensor (*)(const at::Tensor&, const at::Tensor&, const at::Tensor&,
                             const at::Scalar&, const at::Scalar&);
using AddOutFn = at::Tensor& (*)(at::Tensor&, const at::Tensor&, const at::Tensor&,
                                 const at::Tensor&, const at::Scalar&, const at::Scalar&);
void AddProduct(KernelRegistry& registry, const char* name, AddFn fn, AddOutFn out_fn) {
  registry.Add(OutVariant(name, "", [fn, out_fn](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    const at::Tensor& m1 = TensorArg(io, 1);
    const at::Tensor& m2 = TensorArg(io, 2);
    const at::Scalar beta = io.Input(3).toScalar();
    const at::Scalar alpha = io.Input(4).toScalar();
    WriteOutput(
        io, 0, m1.scalar_type(), [&] { return fn(self, m1, m2, beta, alpha); },
        [&](at::Tensor& out) { out_fn(out, self, m1, m2, beta, alpha); });
  }));
}

}  // namespace

void RegisterOutLinalgKernels(KernelRegistry& registry) {
  Product(registry, "aten::mm", at::mm, at::cpu::mm_out);
  Product(registry, "aten::bmm", at::bmm, BmmOut);
  // matmul writes directly only where it is one mm or bmm; other shapes
  // take the functional form (LibTorch's matmul_out would compute into a
  // temporary and copy).
  registry.Add(OutVariant("aten::matmul", "", [](NodeIO& io) {
    const at::Tensor& a = TensorArg(io, 0);
    const at::Tensor& b = TensorArg(io, 1);
    const bool mm = a.dim() == 2 && b.dim() == 2;
    // Equal batch dimensions (no broadcasting): one bmm over the flattened
    // batch, as ATen's matmul does.
    const bool bmm = a.dim() >= 3 && a.dim() == b.dim() &&
                     a.sizes().slice(0, a.dim() - 2).equals(b.sizes().slice(0, b.dim() - 2));
    if (!mm && !bmm) {
      io.Output(0) = at::matmul(a, b);
      return;
    }
    WriteOutput(
        io, 0, a.scalar_type(), [&] { return at::matmul(a, b); },
        [&](at::Tensor& out) {
          if (mm) {
            at::cpu::mm_out(out, a, b);
            return;
          }
          const int64_t n = a.size(-2), k = a.size(-1), m = b.size(-1);
          std::vector<int64_t> shape = a.sizes().vec();
          shape.back() = m;
          TORCH_CHECK(b.size(-2) == k, "matmul: shapes ", a.sizes(), " and ", b.sizes(),
                      " cannot be multiplied");
          out.resize_(shape);
          const int64_t batch = c10::multiply_integers(a.sizes().slice(0, a.dim() - 2));
          at::Tensor out3 = out.view({batch, n, m});
          BmmOut(out3, a.reshape({batch, n, k}), b.reshape({batch, k, m}));
        });
  }));
  AddProduct(registry, "aten::addmm", at::addmm, at::cpu::addmm_out);
  AddProduct(registry, "aten::baddbmm", at::baddbmm, BaddbmmOut);
  registry.Add(OutVariant("aten::linear", "", [](NodeIO& io) {
    const at::Tensor& input = TensorArg(io, 0);
    const at::Tensor& weight = TensorArg(io, 1);
    const c10::optional<at::Tensor> bias = OptionalTensorArg(io, 2);
    const bool has_bias = bias && bias->defined();
    // Inputs of rank >= 3 fold into one matrix product, as ATen's linear
    // does for a contiguous 3-d input (with or without bias) and for any
    // rank without bias; linear_out would compute into a temporary.
    const bool fold = input.dim() >= 3 && input.is_contiguous() && weight.dim() == 2 &&
                      (input.dim() == 3 || !has_bias);
    WriteOutput(
        io, 0, input.scalar_type(), [&] { return at::linear(input, weight, bias); },
        [&](at::Tensor& out) {
          if (!fold) {
            at::linear_out(out, input, weight, bias);
            return;
          }
          std::vector<int64_t> shape = input.sizes().vec();
          shape.back() = weight.size(0);
          out.resize_(shape);
          const int64_t rows = c10::multiply_integers(input.sizes().slice(0, input.dim() - 1));
          at::Tensor out2 = out.view({rows, weight.size(0)});
          const at::Tensor input2 = input.view({rows, input.size(-1)});
          has_bias ? at::cpu::addmm_out(out2, *bias, input2, weight.t())
                   : at::cpu::mm_out(out2, input2, weight.t());
        });
  }));
}

}  // namespace static_runtime
