// Native kernels for in-place ops (add_, mul_, relu_, clamp_, masked_fill_,
// fill_, copy_, index_put_, ...): each writes into its first argument and
// returns it, calling ATen's CPU kernel directly for an inference tensor
// inside inference mode (ops/core/direct_call.h) and the dispatcher otherwise
// (which also bumps version counters and checks autograd's rules). Scalar
// overloads wrap the scalar as ATen's own Scalar overloads do.
#include "ATen/ATen.h"
#include "ATen/CPUFunctions.h"
#include "ATen/NativeFunctions.h"
#include "ops/core/direct_call.h"
#include "ops/core/out_variant.h"
#include "ops/core/registry.h"
#include "ops/core/wrapped_scalar.h"

namespace static_runtime {
namespace {

// at::cpu::fn(self, args...) when the direct call is allowed, else the
// dispatched method self.fn(args...).
#define SR_CPU_OR_METHOD(self, fn, ...) \
  (DirectCallOk(self) ? ::at::cpu::fn(self, ##__VA_ARGS__) : self.fn(__VA_ARGS__))
// The same for the nn ops ATen offers as functions only: at::fn(self, args...).
#define SR_CPU_OR_FUNCTION(self, fn, ...) \
  (DirectCallOk(self) ? ::at::cpu::fn(self, ##__VA_ARGS__) : ::at::fn(self, ##__VA_ARGS__))

// Registers `name`.`overload`, whose kernel `body` updates `self` in place;
// the output is `self`.
template <typename Body>
void RegisterInPlace(KernelRegistry& registry, const char* name, const char* overload, Body body) {
  registry.Add(Native(name, overload, [body](NodeIO& io) {
    at::Tensor self = io.Input(0).toTensor();
    body(self, io);
    io.Output(0) = std::move(self);
  }));
}

at::Scalar ScalarArg(const NodeIO& io, size_t i) { return io.Input(i).toScalar(); }

void RegisterArithmetic(KernelRegistry& registry) {
  RegisterInPlace(registry, "aten::add_", "Tensor", [](at::Tensor& self, const NodeIO& io) {
    SR_CPU_OR_METHOD(self, add_, TensorArg(io, 1), ScalarArg(io, 2));
  });
  RegisterInPlace(registry, "aten::add_", "Scalar", [](at::Tensor& self, const NodeIO& io) {
    SR_CPU_OR_METHOD(self, add_, WrappedScalar(ScalarArg(io, 1), self.scalar_type()),
                     ScalarArg(io, 2));
  });
  RegisterInPlace(registry, "aten::sub_", "Tensor", [](at::Tensor& self, const NodeIO& io) {
    SR_CPU_OR_METHOD(self, sub_, TensorArg(io, 1), ScalarArg(io, 2));
  });
  RegisterInPlace(registry, "aten::sub_", "Scalar", [](at::Tensor& self, const NodeIO& io) {
    SR_CPU_OR_METHOD(self, sub_, WrappedScalar(ScalarArg(io, 1), self.scalar_type()),
                     ScalarArg(io, 2));
  });
  RegisterInPlace(registry, "aten::mul_", "Tensor", [](at::Tensor& self, const NodeIO& io) {
    SR_CPU_OR_METHOD(self, mul_, TensorArg(io, 1));
  });
  RegisterInPlace(registry, "aten::mul_", "Scalar", [](at::Tensor& self, const NodeIO& io) {
    SR_CPU_OR_METHOD(self, mul_, WrappedScalar(ScalarArg(io, 1), self.scalar_type()));
  });
  RegisterInPlace(registry, "aten::div_", "Tensor", [](at::Tensor& self, const NodeIO& io) {
    SR_CPU_OR_METHOD(self, div_, TensorArg(io, 1));
  });
  RegisterInPlace(registry, "aten::div_", "Scalar", [](at::Tensor& self, const NodeIO& io) {
    SR_CPU_OR_METHOD(self, div_, WrappedScalar(ScalarArg(io, 1), self.scalar_type()));
  });
  RegisterInPlace(registry, "aten::div_", "Tensor_mode", [](at::Tensor& self, const NodeIO& io) {
    SR_CPU_OR_METHOD(self, div_, TensorArg(io, 1), io.Input(2).toOptional<c10::string_view>());
  });
  RegisterInPlace(registry, "aten::pow_", "Scalar", [](at::Tensor& self, const NodeIO& io) {
    SR_CPU_OR_METHOD(self, pow_, ScalarArg(io, 1));
  });
  RegisterInPlace(registry, "aten::pow_", "Tensor", [](at::Tensor& self, const NodeIO& io) {
    SR_CPU_OR_METHOD(self, pow_, TensorArg(io, 1));
  });
}

void RegisterUnary(KernelRegistry& registry) {
#define SR_UNARY_IN_PLACE(fn)                 \
  RegisterInPlace(registry, "aten::" #fn, "", \
                  [](at::Tensor& self, const NodeIO&) { SR_CPU_OR_METHOD(self, fn); })
  SR_UNARY_IN_PLACE(relu_);
  SR_UNARY_IN_PLACE(sigmoid_);
  SR_UNARY_IN_PLACE(tanh_);
  SR_UNARY_IN_PLACE(exp_);
  SR_UNARY_IN_PLACE(log_);
  SR_UNARY_IN_PLACE(sqrt_);
  SR_UNARY_IN_PLACE(rsqrt_);
  SR_UNARY_IN_PLACE(neg_);
  SR_UNARY_IN_PLACE(floor_);
  SR_UNARY_IN_PLACE(ceil_);
  SR_UNARY_IN_PLACE(reciprocal_);
  SR_UNARY_IN_PLACE(zero_);
#undef SR_UNARY_IN_PLACE
#define SR_NN_IN_PLACE(fn)                    \
  RegisterInPlace(registry, "aten::" #fn, "", \
                  [](at::Tensor& self, const NodeIO&) { SR_CPU_OR_FUNCTION(self, fn); })
  SR_NN_IN_PLACE(silu_);
  SR_NN_IN_PLACE(hardswish_);
  SR_NN_IN_PLACE(hardsigmoid_);
#undef SR_NN_IN_PLACE
  RegisterInPlace(registry, "aten::round_", "",
                  [](at::Tensor& self, const NodeIO&) { SR_CPU_OR_METHOD(self, round_); });
  RegisterInPlace(registry, "aten::abs_", "", [](at::Tensor& self, const NodeIO&) {
    DirectCallOk(self) ? at::native::abs_(self) : self.abs_();
  });
  RegisterInPlace(registry, "aten::gelu_", "", [](at::Tensor& self, const NodeIO& io) {
    SR_CPU_OR_FUNCTION(self, gelu_, io.Input(1).toStringView());
  });
  RegisterInPlace(registry, "aten::clamp_", "", [](at::Tensor& self, const NodeIO& io) {
    SR_CPU_OR_METHOD(self, clamp_, io.Input(1).toOptional<at::Scalar>(),
                     io.Input(2).toOptional<at::Scalar>());
  });
  RegisterInPlace(registry, "aten::clamp_min_", "", [](at::Tensor& self, const NodeIO& io) {
    SR_CPU_OR_METHOD(self, clamp_min_, ScalarArg(io, 1));
  });
  RegisterInPlace(registry, "aten::clamp_max_", "", [](at::Tensor& self, const NodeIO& io) {
    SR_CPU_OR_METHOD(self, clamp_max_, ScalarArg(io, 1));
  });
  RegisterInPlace(registry, "aten::hardtanh_", "", [](at::Tensor& self, const NodeIO& io) {
    SR_CPU_OR_FUNCTION(self, hardtanh_, ScalarArg(io, 1), ScalarArg(io, 2));
  });
  RegisterInPlace(registry, "aten::leaky_relu_", "", [](at::Tensor& self, const NodeIO& io) {
    SR_CPU_OR_FUNCTION(self, leaky_relu_, ScalarArg(io, 1));
  });
  RegisterInPlace(registry, "aten::elu_", "", [](at::Tensor& self, const NodeIO& io) {
    SR_CPU_OR_FUNCTION(self, elu_, ScalarArg(io, 1), ScalarArg(io, 2), ScalarArg(io, 3));
  });
  RegisterInPlace(registry, "aten::threshold_", "", [](at::Tensor& self, const NodeIO& io) {
    SR_CPU_OR_FUNCTION(self, threshold_, ScalarArg(io, 1), ScalarArg(io, 2));
  });
}

void RegisterWrites(KernelRegistry& registry) {
  RegisterInPlace(registry, "aten::fill_", "Scalar", [](at::Tensor& self, const NodeIO& io) {
    SR_CPU_OR_METHOD(self, fill_, ScalarArg(io, 1));
  });
  RegisterInPlace(registry, "aten::fill_", "Tensor", [](at::Tensor& self, const NodeIO& io) {
    SR_CPU_OR_METHOD(self, fill_, TensorArg(io, 1));
  });
  RegisterInPlace(registry, "aten::masked_fill_", "Scalar", [](at::Tensor& self, const NodeIO& io) {
    SR_CPU_OR_METHOD(self, masked_fill_, TensorArg(io, 1), ScalarArg(io, 2));
  });
  RegisterInPlace(registry, "aten::masked_fill_", "Tensor", [](at::Tensor& self, const NodeIO& io) {
    SR_CPU_OR_METHOD(self, masked_fill_, TensorArg(io, 1), TensorArg(io, 2));
  });
  RegisterInPlace(registry, "aten::copy_", "", [](at::Tensor& self, const NodeIO& io) {
    DirectCallOk(self) ? at::native::copy_(self, TensorArg(io, 1), io.Input(2).toBool())
                       : self.copy_(TensorArg(io, 1), io.Input(2).toBool());
  });
  RegisterInPlace(registry, "aten::index_put_", "", [](at::Tensor& self, const NodeIO& io) {
    const c10::List<c10::optional<at::Tensor>> indices = OptionalTensorListArg(io, 1);
    DirectCallOk(self)
        ? at::native::index_put_(self, indices, TensorArg(io, 2), io.Input(3).toBool())
        : self.index_put_(indices, TensorArg(io, 2), io.Input(3).toBool());
  });
}

}  // namespace

void RegisterNativeInplaceKernels(KernelRegistry& registry) {
  RegisterArithmetic(registry);
  RegisterUnary(registry);
  RegisterWrites(registry);
}

}  // namespace static_runtime
