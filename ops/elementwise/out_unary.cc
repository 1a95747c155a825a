// Out-variant kernels for unary elementwise math and activations: one tensor
// in, one tensor out of the same shape, optionally with scalar parameters.
#include <cmath>
#include <optional>

#include "ATen/ATen.h"
#include "ATen/CPUFunctions.h"
#include "ops/core/direct_call.h"
#include "ops/core/out_variant.h"
#include "ops/elementwise/scalar_operand_loops.h"

namespace static_runtime {
namespace {

// clamp of a small plain float32 tensor between numbers (at least one, none
// NaN) into output 0 with ops::ClampWithScalars; false otherwise.
bool ClampSmallFloat(NodeIO& io) {
  const at::Tensor& self = TensorArg(io, 0);
  if (!ops::SmallPlainFloat(self)) return false;
  std::optional<float> bounds[2];
  for (int i = 0; i < 2; ++i) {
    if (io.Input(1 + i).isNone()) continue;
    bounds[i] = ops::FloatNumber(io.Input(1 + i));
    if (!bounds[i] || std::isnan(*bounds[i])) return false;
  }
  if (!bounds[0] && !bounds[1]) return false;  // ATen's error
  at::Tensor& out = ContiguousOutput(io, 0, at::kFloat, self.sizes());
  ops::ClampWithScalars(self.data_ptr<float>(), bounds[0], bounds[1], self.numel(),
                        out.data_ptr<float>());
  return true;
}

using Fn = at::Tensor (*)(const at::Tensor&);
using OutFn = at::Tensor& (*)(at::Tensor&, const at::Tensor&);
using Rule = at::ScalarType (*)(at::ScalarType);

at::ScalarType Same(at::ScalarType input) { return input; }
at::ScalarType Bool(at::ScalarType) { return at::kBool; }

// `name`(Tensor self) -> Tensor; `cpu_fn` is ATen's CPU kernel allocating
// its result (at::cpu::), if the op has one.
void Unary(KernelRegistry& registry, const char* name, Rule rule, Fn fn, Fn cpu_fn, OutFn out) {
  registry.Add(OutVariant(name, "", [rule, fn, cpu_fn, out](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    WriteOutputOrCpuFunctional(
        io, 0, rule(self.scalar_type()),
        [&] { return cpu_fn != nullptr && CpuKernelsServe(self) ? cpu_fn(self) : fn(self); },
        [&](at::Tensor& result) { out(result, self); });
  }));
}

void RegisterSimple(KernelRegistry& registry) {
  const struct {
    const char* name;
    Rule rule;
    Fn fn;
    Fn cpu_fn;
    OutFn out;
  } kOps[] = {
      {"aten::exp", FloatResult, at::exp, at::cpu::exp, at::cpu::exp_out},
      {"aten::log", FloatResult, at::log, at::cpu::log, at::cpu::log_out},
      {"aten::log1p", FloatResult, at::log1p, at::cpu::log1p, at::cpu::log1p_out},
      {"aten::log2", FloatResult, at::log2, at::cpu::log2, at::cpu::log2_out},
      {"aten::log10", FloatResult, at::log10, at::cpu::log10, at::cpu::log10_out},
      {"aten::expm1", FloatResult, at::expm1, at::cpu::expm1, at::cpu::expm1_out},
      {"aten::exp2", FloatResult, at::exp2, at::cpu::exp2, at::cpu::exp2_out},
      {"aten::sqrt", FloatResult, at::sqrt, at::cpu::sqrt, at::cpu::sqrt_out},
      {"aten::rsqrt", FloatResult, at::rsqrt, at::cpu::rsqrt, at::cpu::rsqrt_out},
      {"aten::reciprocal", FloatResult, at::reciprocal, at::cpu::reciprocal,
       at::cpu::reciprocal_out},
      {"aten::erf", FloatResult, at::erf, at::cpu::erf, at::cpu::erf_out},
      {"aten::erfc", FloatResult, at::erfc, at::cpu::erfc, at::cpu::erfc_out},
      {"aten::sigmoid", FloatResult, at::sigmoid, at::cpu::sigmoid, at::cpu::sigmoid_out},
      {"aten::tanh", FloatResult, at::tanh, at::cpu::tanh, at::cpu::tanh_out},
      {"aten::sin", FloatResult, at::sin, at::cpu::sin, at::cpu::sin_out},
      {"aten::cos", FloatResult, at::cos, at::cpu::cos, at::cpu::cos_out},
      {"aten::tan", FloatResult, at::tan, at::cpu::tan, at::cpu::tan_out},
      {"aten::asin", FloatResult, at::asin, at::cpu::asin, at::cpu::asin_out},
      {"aten::acos", FloatResult, at::acos, at::cpu::acos, at::cpu::acos_out},
      {"aten::atan", FloatResult, at::atan, at::cpu::atan, at::cpu::atan_out},
      {"aten::sinh", FloatResult, at::sinh, at::cpu::sinh, at::cpu::sinh_out},
      {"aten::cosh", FloatResult, at::cosh, at::cpu::cosh, at::cpu::cosh_out},
      {"aten::abs", Same, at::abs, nullptr, at::cpu::abs_out},
      {"aten::neg", Same, at::neg, at::cpu::neg, at::cpu::neg_out},
      {"aten::sign", Same, at::sign, at::cpu::sign, at::cpu::sign_out},
      {"aten::floor", Same, at::floor, at::cpu::floor, at::cpu::floor_out},
      {"aten::ceil", Same, at::ceil, at::cpu::ceil, at::cpu::ceil_out},
      {"aten::trunc", Same, at::trunc, at::cpu::trunc, at::cpu::trunc_out},
      {"aten::frac", Same, at::frac, at::cpu::frac, at::cpu::frac_out},
      {"aten::silu", Same, at::silu, at::cpu::silu, at::cpu::silu_out},
      {"aten::mish", Same, at::mish, at::cpu::mish, at::cpu::mish_out},
      {"aten::hardswish", Same, at::hardswish, at::cpu::hardswish, at::cpu::hardswish_out},
      {"aten::hardsigmoid", Same, at::hardsigmoid, at::cpu::hardsigmoid, at::cpu::hardsigmoid_out},
      {"aten::bitwise_not", Same, at::bitwise_not, at::cpu::bitwise_not, at::cpu::bitwise_not_out},
      {"aten::logical_not", Bool, at::logical_not, nullptr, at::cpu::logical_not_out},
  };
  for (const auto& op : kOps) Unary(registry, op.name, op.rule, op.fn, op.cpu_fn, op.out);
  Unary(
      registry, "aten::round", Same, [](const at::Tensor& self) { return at::round(self); },
      [](const at::Tensor& self) { return at::cpu::round(self); },
      [](at::Tensor& out, const at::Tensor& self) -> at::Tensor& {
        return at::cpu::round_out(out, self);
      });
  // relu has no out form; clamp_min(0) is the same function.
  Unary(registry, "aten::relu", Same, at::relu, at::cpu::relu,
        [](at::Tensor& out, const at::Tensor& self) -> at::Tensor& {
          return at::cpu::clamp_min_out(out, self, 0);
        });
}

// The dtype of `self` combined with optional scalar arguments (clamp's
// bounds promote: an int tensor clamped by 0.5 gives floats).
at::ScalarType PromoteWithScalars(const at::Tensor& self, const c10::IValue& a,
                                  const c10::IValue& b) {
  at::ScalarType result = self.scalar_type();
  for (const c10::IValue* scalar : {&a, &b}) {
    if (!scalar->isNone()) {
      result = c10::promoteTypes(result, at::result_type(self, scalar->toScalar()));
    }
  }
  return result;
}

void RegisterParameterized(KernelRegistry& registry) {
  registry.Add(OutVariant("aten::logit", "", [](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    const auto eps = io.Input(1).toOptional<double>();
    WriteOutput(
        io, 0, FloatResult(self.scalar_type()), [&] { return at::logit(self, eps); },
        [&](at::Tensor& out) { at::cpu::logit_out(out, self, eps); });
  }));
  registry.Add(OutVariant("aten::nan_to_num", "", [](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    const auto nan = io.Input(1).toOptional<double>();
    const auto posinf = io.Input(2).toOptional<double>();
    const auto neginf = io.Input(3).toOptional<double>();
    WriteOutput(
        io, 0, self.scalar_type(), [&] { return at::nan_to_num(self, nan, posinf, neginf); },
        [&](at::Tensor& out) { at::cpu::nan_to_num_out(out, self, nan, posinf, neginf); });
  }));
  registry.Add(OutVariant("aten::elu", "", [](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    const at::Scalar alpha = io.Input(1).toScalar();
    const at::Scalar scale = io.Input(2).toScalar();
    const at::Scalar input_scale = io.Input(3).toScalar();
    WriteOutput(
        io, 0, self.scalar_type(), [&] { return at::elu(self, alpha, scale, input_scale); },
        [&](at::Tensor& out) { at::cpu::elu_out(out, self, alpha, scale, input_scale); });
  }));
  registry.Add(OutVariant("aten::leaky_relu", "", [](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    const at::Scalar slope = io.Input(1).toScalar();
    WriteOutput(
        io, 0, self.scalar_type(), [&] { return at::leaky_relu(self, slope); },
        [&](at::Tensor& out) { at::cpu::leaky_relu_out(out, self, slope); });
  }));
  registry.Add(OutVariant("aten::hardtanh", "", [](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    const at::Scalar low = io.Input(1).toScalar();
    const at::Scalar high = io.Input(2).toScalar();
    WriteOutput(
        io, 0, self.scalar_type(), [&] { return at::hardtanh(self, low, high); },
        [&](at::Tensor& out) { at::cpu::hardtanh_out(out, self, low, high); });
  }));
  registry.Add(OutVariant("aten::softplus", "", [](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    const at::Scalar beta = io.Input(1).toScalar();
    const at::Scalar threshold = io.Input(2).toScalar();
    WriteOutput(
        io, 0, self.scalar_type(), [&] { return at::softplus(self, beta, threshold); },
        [&](at::Tensor& out) { at::cpu::softplus_out(out, self, beta, threshold); });
  }));
  registry.Add(OutVariant("aten::threshold", "", [](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    const at::Scalar threshold = io.Input(1).toScalar();
    const at::Scalar value = io.Input(2).toScalar();
    WriteOutput(
        io, 0, self.scalar_type(), [&] { return at::threshold(self, threshold, value); },
        [&](at::Tensor& out) { at::cpu::threshold_out(out, self, threshold, value); });
  }));
  registry.Add(OutVariant("aten::clamp", "", [](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    if (ClampSmallFloat(io)) return;
    const auto low = io.Input(1).toOptional<at::Scalar>();
    const auto high = io.Input(2).toOptional<at::Scalar>();
    WriteOutput(
        io, 0, PromoteWithScalars(self, io.Input(1), io.Input(2)),
        [&] { return at::clamp(self, low, high); },
        [&](at::Tensor& out) { at::cpu::clamp_out(out, self, low, high); });
  }));
  registry.Add(OutVariant("aten::clamp_min", "", [](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    const at::Scalar low = io.Input(1).toScalar();
    WriteOutput(
        io, 0, PromoteWithScalars(self, io.Input(1), c10::IValue()),
        [&] { return at::clamp_min(self, low); },
        [&](at::Tensor& out) { at::cpu::clamp_min_out(out, self, low); });
  }));
  registry.Add(OutVariant("aten::clamp_max", "", [](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    const at::Scalar high = io.Input(1).toScalar();
    WriteOutput(
        io, 0, PromoteWithScalars(self, io.Input(1), c10::IValue()),
        [&] { return at::clamp_max(self, high); },
        [&](at::Tensor& out) { at::cpu::clamp_max_out(out, self, high); });
  }));
  using DiagonalFn = at::Tensor (*)(const at::Tensor&, int64_t);
  using DiagonalOutFn = at::Tensor& (*)(at::Tensor&, const at::Tensor&, int64_t);
  auto diagonal_op = [&registry](const char* name, DiagonalFn fn, DiagonalOutFn out_fn) {
    registry.Add(OutVariant(name, "", [fn, out_fn](NodeIO& io) {
      const at::Tensor& self = TensorArg(io, 0);
      const int64_t diagonal = io.Input(1).toInt();
      WriteOutput(
          io, 0, self.scalar_type(), [&] { return fn(self, diagonal); },
          [&](at::Tensor& out) { out_fn(out, self, diagonal); });
    }));
  };
  diagonal_op("aten::tril", at::tril, at::cpu::tril_out);
  diagonal_op("aten::triu", at::triu, at::cpu::triu_out);
}

}  // namespace

void RegisterOutUnaryKernels(KernelRegistry& registry) {
  RegisterSimple(registry);
  RegisterParameterized(registry);
}

}  // namespace static_runtime
