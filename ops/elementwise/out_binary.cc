// Out-variant kernels for binary (broadcasting) arithmetic, comparisons,
// logical ops, where, masked_fill, addcmul and lerp. Result dtypes follow
// ATen's type promotion.
#include <optional>

#include "ATen/ATen.h"
#include "ATen/CPUFunctions.h"
#include "ops/core/direct_call.h"
#include "ops/core/out_variant.h"
#include "ops/core/wrapped_scalar.h"
#include "ops/elementwise/scalar_operand_loops.h"

namespace static_runtime {
namespace {

// The number `b` as ATen applies it to `a`, when `a` is a small plain float32
// tensor and `b` a real Python number (the result is then float32, or bool
// for a comparison): the case ops/elementwise/scalar_operand_loops.h computes.
std::optional<float> SmallFloatTensorAndNumber(const at::Tensor& a, const c10::IValue& b) {
  if (!ops::SmallPlainFloat(a)) return std::nullopt;
  return ops::FloatNumber(b);
}

// a (+, -, *, /) b into output 0, for a small plain float32 tensor `a`.
void WriteArithmeticWithNumber(NodeIO& io, ops::ScalarArithmetic op, const at::Tensor& a, float b) {
  at::Tensor& out = ContiguousOutput(io, 0, at::kFloat, a.sizes());
  ops::ArithmeticWithScalar(op, a.data_ptr<float>(), b, a.numel(), out.data_ptr<float>());
}

// a (+, -, *, /) b for SmallFloatTensorAndNumber's case into output 0; false
// otherwise.
bool ArithmeticWithNumber(NodeIO& io, ops::ScalarArithmetic op) {
  const at::Tensor& a = TensorArg(io, 0);
  const std::optional<float> b = SmallFloatTensorAndNumber(a, io.Input(1));
  if (!b) return false;
  WriteArithmeticWithNumber(io, op, a, *b);
  return true;
}

// a (+, -, *, /) b for two small plain float32 tensors of one size, or b a
// 0-dim float32 tensor (which ATen reads as a number), into output 0; false
// otherwise.
bool ArithmeticOfSmallFloats(NodeIO& io, ops::ScalarArithmetic op) {
  const at::Tensor& a = TensorArg(io, 0);
  const at::Tensor& b = TensorArg(io, 1);
  if (!ops::SmallPlainFloat(a) || !ops::SmallPlainFloat(b)) return false;
  if (b.dim() == 0 && a.dim() > 0) {
    WriteArithmeticWithNumber(io, op, a, *b.data_ptr<float>());
    return true;
  }
  if (!a.sizes().equals(b.sizes())) return false;
  at::Tensor& out = ContiguousOutput(io, 0, at::kFloat, a.sizes());
  ops::ArithmeticElementwise(op, a.data_ptr<float>(), b.data_ptr<float>(), a.numel(),
                             out.data_ptr<float>());
  return true;
}

at::ScalarType Promoted(const NodeIO& io) {
  const c10::IValue& a = io.Input(0);
  const c10::IValue& b = io.Input(1);
  if (a.isTensor() && b.isTensor()) return at::result_type(a.toTensor(), b.toTensor());
  if (a.isTensor()) return at::result_type(a.toTensor(), b.toScalar());
  return at::result_type(a.toScalar(), b.toTensor());
}

using Rule = at::ScalarType (*)(const NodeIO&);
at::ScalarType PromotedFloat(const NodeIO& io) { return FloatResult(Promoted(io)); }
at::ScalarType Bool(const NodeIO&) { return at::kBool; }

// (Tensor self, Tensor other) -> Tensor
using TensorTensorFn = at::Tensor (*)(const at::Tensor&, const at::Tensor&);
using TensorTensorOutFn = at::Tensor& (*)(at::Tensor&, const at::Tensor&, const at::Tensor&);
void TensorTensor(KernelRegistry& registry, const char* name, const char* overload, Rule rule,
                  TensorTensorFn fn, TensorTensorOutFn out,
                  std::optional<ops::ScalarArithmetic> arithmetic = std::nullopt) {
  registry.Add(OutVariant(name, overload, [rule, fn, out, arithmetic](NodeIO& io) {
    if (arithmetic && ArithmeticOfSmallFloats(io, *arithmetic)) return;
    const at::Tensor& a = TensorArg(io, 0);
    const at::Tensor& b = TensorArg(io, 1);
    WriteOutputOrCpuFunctional(
        io, 0, rule(io), [&] { return fn(a, b); }, [&](at::Tensor& result) { out(result, a, b); });
  }));
}

// (Tensor self, Scalar other) -> Tensor; comparisons with `comparison`'s
// loop in SmallFloatTensorAndNumber's case.
using TensorScalarFn = at::Tensor (*)(const at::Tensor&, const at::Scalar&);
using TensorScalarOutFn = at::Tensor& (*)(at::Tensor&, const at::Tensor&, const at::Scalar&);
void TensorScalar(KernelRegistry& registry, const char* name, const char* overload, Rule rule,
                  TensorScalarFn fn, TensorScalarOutFn out,
                  std::optional<ops::ScalarComparison> comparison = std::nullopt) {
  registry.Add(OutVariant(name, overload, [rule, fn, out, comparison](NodeIO& io) {
    const at::Tensor& a = TensorArg(io, 0);
    if (comparison) {
      if (const std::optional<float> b = SmallFloatTensorAndNumber(a, io.Input(1))) {
        at::Tensor& result = ContiguousOutput(io, 0, at::kBool, a.sizes());
        ops::CompareWithScalar(*comparison, a.data_ptr<float>(), *b, a.numel(),
                               result.data_ptr<bool>());
        return;
      }
    }
    const at::Scalar b = io.Input(1).toScalar();
    WriteOutputOrCpuFunctional(
        io, 0, rule(io), [&] { return fn(a, b); }, [&](at::Tensor& result) { out(result, a, b); });
  }));
}

// (Tensor self, Scalar other) -> Tensor computed by the Tensor-Tensor out
// form with the scalar as a wrapped 0-dim tensor, which is what ATen's
// functional form does (its Scalar out form copies through a temporary).
void TensorWrappedScalar(KernelRegistry& registry, const char* name, const char* overload,
                         Rule rule, TensorTensorFn fn, TensorTensorOutFn out,
                         std::optional<ops::ScalarArithmetic> arithmetic = std::nullopt) {
  registry.Add(OutVariant(name, overload, [rule, fn, out, arithmetic](NodeIO& io) {
    if (arithmetic && ArithmeticWithNumber(io, *arithmetic)) return;
    const at::Tensor& a = TensorArg(io, 0);
    const at::ScalarType dtype = rule(io);
    const at::Tensor b = WrappedScalar(io.Input(1).toScalar(), dtype);
    WriteOutputOrCpuFunctional(
        io, 0, dtype, [&] { return fn(a, b); }, [&](at::Tensor& result) { out(result, a, b); });
  }));
}

// Wraps an overloaded ATen function as plain function pointers: the
// functional form (ATen's CPU kernel directly when CpuKernelsServe) and the
// out form.
#define SR_TT(fn)                                                                  \
  [](const at::Tensor& a, const at::Tensor& b) {                                   \
    return CpuKernelsServe(a, b) ? at::cpu::fn(a, b) : at::fn(a, b);               \
  },                                                                               \
      [](at::Tensor& o, const at::Tensor& a, const at::Tensor& b) -> at::Tensor& { \
        return at::cpu::fn##_out(o, a, b);                                         \
      }
#define SR_TS(fn)                                                                  \
  [](const at::Tensor& a, const at::Scalar& b) {                                   \
    return CpuKernelsServe(a) ? at::cpu::fn(a, b) : at::fn(a, b);                  \
  },                                                                               \
      [](at::Tensor& o, const at::Tensor& a, const at::Scalar& b) -> at::Tensor& { \
        return at::cpu::fn##_out(o, a, b);                                         \
      }
// For ops without a CPU functional form (composites of their out form).
#define SR_TT_DISPATCHED(fn)                                                       \
  [](const at::Tensor& a, const at::Tensor& b) { return at::fn(a, b); },           \
      [](at::Tensor& o, const at::Tensor& a, const at::Tensor& b) -> at::Tensor& { \
        return at::cpu::fn##_out(o, a, b);                                         \
      }

void RegisterArithmetic(KernelRegistry& registry) {
  // add/sub/rsub take alpha.
  using AlphaFn = at::Tensor (*)(const at::Tensor&, const at::Tensor&, const at::Scalar&);
  using AlphaOutFn =
      at::Tensor& (*)(at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Scalar&);
  auto with_alpha = [&registry](const char* name, AlphaFn fn, AlphaOutFn out,
                                std::optional<ops::ScalarArithmetic> arithmetic) {
    registry.Add(OutVariant(name, "Tensor", [fn, out, arithmetic](NodeIO& io) {
      if (arithmetic && IsOne(io.Input(2).toScalar()) && ArithmeticOfSmallFloats(io, *arithmetic)) {
        return;
      }
      const at::Tensor& a = TensorArg(io, 0);
      const at::Tensor& b = TensorArg(io, 1);
      const at::Scalar alpha = io.Input(2).toScalar();
      WriteOutputOrCpuFunctional(
          io, 0, Promoted(io), [&] { return fn(a, b, alpha); },
          [&](at::Tensor& result) { out(result, a, b, alpha); });
    }));
    registry.Add(OutVariant(name, "Scalar", [fn, out, arithmetic](NodeIO& io) {
      if (arithmetic && IsOne(io.Input(2).toScalar()) && ArithmeticWithNumber(io, *arithmetic))
        return;
      const at::Tensor& a = TensorArg(io, 0);
      // Scalars become 0-dim tensors, as ATen's own Scalar overloads do.
      const at::ScalarType dtype = Promoted(io);
      const at::Tensor b = WrappedScalar(io.Input(1).toScalar(), dtype);
      const at::Scalar alpha = io.Input(2).toScalar();
      WriteOutputOrCpuFunctional(
          io, 0, dtype, [&] { return fn(a, b, alpha); },
          [&](at::Tensor& result) { out(result, a, b, alpha); });
    }));
  };
  with_alpha(
      "aten::add",
      [](const at::Tensor& a, const at::Tensor& b, const at::Scalar& alpha) {
        return CpuKernelsServe(a, b) ? at::cpu::add(a, b, alpha) : at::add(a, b, alpha);
      },
      [](at::Tensor& o, const at::Tensor& a, const at::Tensor& b,
         const at::Scalar& alpha) -> at::Tensor& { return at::cpu::add_out(o, a, b, alpha); },
      ops::ScalarArithmetic::kAdd);
  with_alpha(
      "aten::sub",
      [](const at::Tensor& a, const at::Tensor& b, const at::Scalar& alpha) {
        return CpuKernelsServe(a, b) ? at::cpu::sub(a, b, alpha) : at::sub(a, b, alpha);
      },
      [](at::Tensor& o, const at::Tensor& a, const at::Tensor& b,
         const at::Scalar& alpha) -> at::Tensor& { return at::cpu::sub_out(o, a, b, alpha); },
      ops::ScalarArithmetic::kSub);
  // rsub(a, b, alpha) is b - alpha * a, which is how ATen computes it.
  with_alpha(
      "aten::rsub",
      [](const at::Tensor& a, const at::Tensor& b, const at::Scalar& alpha) {
        return CpuKernelsServe(a, b) ? at::cpu::sub(b, a, alpha) : at::rsub(a, b, alpha);
      },
      [](at::Tensor& o, const at::Tensor& a, const at::Tensor& b,
         const at::Scalar& alpha) -> at::Tensor& { return at::cpu::sub_out(o, b, a, alpha); },
      std::nullopt);

  TensorTensor(registry, "aten::mul", "Tensor", Promoted, SR_TT(mul), ops::ScalarArithmetic::kMul);
  TensorWrappedScalar(registry, "aten::mul", "Scalar", Promoted, SR_TT(mul),
                      ops::ScalarArithmetic::kMul);
  // True division of floats: ATen's float kernel divides (vector and scalar
  // alike, correctly rounded), a number rounded to float first.
  TensorTensor(registry, "aten::div", "Tensor", PromotedFloat, SR_TT(div),
               ops::ScalarArithmetic::kDiv);
  TensorWrappedScalar(registry, "aten::div", "Scalar", PromotedFloat, SR_TT(div),
                      ops::ScalarArithmetic::kDiv);
  TensorTensor(registry, "aten::pow", "Tensor_Tensor", Promoted, SR_TT(pow));
  TensorScalar(registry, "aten::pow", "Tensor_Scalar", Promoted, SR_TS(pow));
  TensorTensor(registry, "aten::maximum", "", Promoted, SR_TT(maximum));
  TensorTensor(registry, "aten::minimum", "", Promoted, SR_TT(minimum));
  TensorTensor(registry, "aten::max", "other", Promoted, SR_TT(maximum));
  TensorTensor(registry, "aten::min", "other", Promoted, SR_TT(minimum));
  TensorTensor(registry, "aten::atan2", "", PromotedFloat, SR_TT(atan2));
  TensorTensor(registry, "aten::remainder", "Tensor", Promoted, SR_TT(remainder));
  TensorWrappedScalar(registry, "aten::remainder", "Scalar", Promoted, SR_TT(remainder));
  TensorTensor(registry, "aten::fmod", "Tensor", Promoted, SR_TT(fmod));
  TensorWrappedScalar(registry, "aten::fmod", "Scalar", Promoted, SR_TT(fmod));
  TensorTensor(registry, "aten::floor_divide", "", Promoted, SR_TT(floor_divide));

  registry.Add(OutVariant("aten::pow", "Scalar", [](NodeIO& io) {
    const at::Scalar base = io.Input(0).toScalar();
    const at::Tensor& exponent = TensorArg(io, 1);
    WriteOutput(
        io, 0, Promoted(io), [&] { return at::pow(base, exponent); },
        [&](at::Tensor& out) { at::cpu::pow_out(out, base, exponent); });
  }));
  const struct {
    const char* overload;
    bool scalar_other;
  } kDivModes[] = {{"Tensor_mode", false}, {"Scalar_mode", true}};
  for (const auto& [overload, scalar] : kDivModes) {
    registry.Add(OutVariant("aten::div", overload, [scalar = scalar](NodeIO& io) {
      const at::Tensor& a = TensorArg(io, 0);
      const at::Tensor b = scalar ? WrappedScalar(io.Input(1).toScalar()) : TensorArg(io, 1);
      const auto mode = io.Input(2).toOptional<c10::string_view>();
      const at::ScalarType dtype = mode ? Promoted(io) : PromotedFloat(io);
      WriteOutput(
          io, 0, dtype, [&] { return at::div(a, b, mode); },
          [&](at::Tensor& out) { at::cpu::div_out(out, a, b, mode); });
    }));
  }
}

void RegisterComparisonsAndLogic(KernelRegistry& registry) {
  TensorTensor(registry, "aten::eq", "Tensor", Bool, SR_TT(eq));
  TensorScalar(registry, "aten::eq", "Scalar", Bool, SR_TS(eq), ops::ScalarComparison::kEq);
  TensorTensor(registry, "aten::ne", "Tensor", Bool, SR_TT(ne));
  TensorScalar(registry, "aten::ne", "Scalar", Bool, SR_TS(ne), ops::ScalarComparison::kNe);
  TensorTensor(registry, "aten::lt", "Tensor", Bool, SR_TT(lt));
  TensorScalar(registry, "aten::lt", "Scalar", Bool, SR_TS(lt), ops::ScalarComparison::kLt);
  TensorTensor(registry, "aten::le", "Tensor", Bool, SR_TT(le));
  TensorScalar(registry, "aten::le", "Scalar", Bool, SR_TS(le), ops::ScalarComparison::kLe);
  TensorTensor(registry, "aten::gt", "Tensor", Bool, SR_TT(gt));
  TensorScalar(registry, "aten::gt", "Scalar", Bool, SR_TS(gt), ops::ScalarComparison::kGt);
  TensorTensor(registry, "aten::ge", "Tensor", Bool, SR_TT(ge));
  TensorScalar(registry, "aten::ge", "Scalar", Bool, SR_TS(ge), ops::ScalarComparison::kGe);
  TensorTensor(registry, "aten::logical_and", "", Bool, SR_TT_DISPATCHED(logical_and));
  TensorTensor(registry, "aten::logical_or", "", Bool, SR_TT_DISPATCHED(logical_or));
  TensorTensor(registry, "aten::logical_xor", "", Bool, SR_TT_DISPATCHED(logical_xor));
  // a & b, a | b, a ^ b of masks (padding masks, box filters): ATen's
  // bitwise ops, which the operators are.
  TensorTensor(registry, "aten::__and__", "Tensor", Promoted, SR_TT(bitwise_and));
  TensorTensor(registry, "aten::__or__", "Tensor", Promoted, SR_TT(bitwise_or));
  TensorTensor(registry, "aten::__xor__", "Tensor", Promoted, SR_TT(bitwise_xor));
}

// masked_fill as ATen computes it (self broadcast with the mask and copied,
// then an in-place fill), into the output; its out form would copy through
// a temporary.
at::Tensor& CopyThenFill(at::Tensor& out, const at::Tensor& self, const at::Tensor& mask) {
  out.resize_(at::infer_size(self.sizes(), mask.sizes()));
  out.copy_(self);
  return out;
}

void RegisterSelection(KernelRegistry& registry) {
  registry.Add(OutVariant("aten::where", "self", [](NodeIO& io) {
    const at::Tensor& condition = TensorArg(io, 0);
    const at::Tensor& a = TensorArg(io, 1);
    const at::Tensor& b = TensorArg(io, 2);
    WriteOutputOrCpuFunctional(
        io, 0, at::result_type(a, b),
        [&] {
          return CpuKernelsServe(condition, a, b) ? at::cpu::where(condition, a, b)
                                                  : at::where(condition, a, b);
        },
        [&](at::Tensor& out) { at::cpu::where_out(out, condition, a, b); });
  }));
  registry.Add(OutVariant("aten::masked_fill", "Scalar", [](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    const at::Tensor& mask = TensorArg(io, 1);
    const at::Scalar value = io.Input(2).toScalar();
    WriteOutput(
        io, 0, self.scalar_type(), [&] { return at::masked_fill(self, mask, value); },
        [&](at::Tensor& out) { CopyThenFill(out, self, mask).masked_fill_(mask, value); });
  }));
  registry.Add(OutVariant("aten::masked_fill", "Tensor", [](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    const at::Tensor& mask = TensorArg(io, 1);
    const at::Tensor& value = TensorArg(io, 2);
    WriteOutput(
        io, 0, self.scalar_type(), [&] { return at::masked_fill(self, mask, value); },
        [&](at::Tensor& out) { CopyThenFill(out, self, mask).masked_fill_(mask, value); });
  }));
  registry.Add(OutVariant("aten::addcmul", "", [](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    const at::Tensor& t1 = TensorArg(io, 1);
    const at::Tensor& t2 = TensorArg(io, 2);
    const at::Scalar value = io.Input(3).toScalar();
    const at::ScalarType dtype =
        c10::promoteTypes(at::result_type(self, t1), at::result_type(self, t2));
    WriteOutputOrCpuFunctional(
        io, 0, dtype,
        [&] {
          return CpuKernelsServe(self, t1, t2) ? at::cpu::addcmul(self, t1, t2, value)
                                               : at::addcmul(self, t1, t2, value);
        },
        [&](at::Tensor& out) { at::cpu::addcmul_out(out, self, t1, t2, value); });
  }));
  registry.Add(OutVariant("aten::lerp", "Scalar", [](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    const at::Tensor& end = TensorArg(io, 1);
    const at::Scalar weight = io.Input(2).toScalar();
    WriteOutputOrCpuFunctional(
        io, 0, self.scalar_type(),
        [&] {
          return CpuKernelsServe(self, end) ? at::cpu::lerp(self, end, weight)
                                            : at::lerp(self, end, weight);
        },
        [&](at::Tensor& out) { at::cpu::lerp_out(out, self, end, weight); });
  }));
  registry.Add(OutVariant("aten::lerp", "Tensor", [](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    const at::Tensor& end = TensorArg(io, 1);
    const at::Tensor& weight = TensorArg(io, 2);
    WriteOutputOrCpuFunctional(
        io, 0, self.scalar_type(),
        [&] {
          return CpuKernelsServe(self, end, weight) ? at::cpu::lerp(self, end, weight)
                                                    : at::lerp(self, end, weight);
        },
        [&](at::Tensor& out) { at::cpu::lerp_out(out, self, end, weight); });
  }));
}

}  // namespace

void RegisterOutBinaryKernels(KernelRegistry& registry) {
  RegisterArithmetic(registry);
  RegisterComparisonsAndLogic(registry);
  RegisterSelection(registry);
}

}  // namespace static_runtime
