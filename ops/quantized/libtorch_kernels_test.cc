// The kernels that make LibTorch's quantized calls against LibTorch's own
// operators, bit for bit, on every quantized engine this LibTorch has: random
// convolutions (kernel sizes, strides, padding, dilation, depthwise and
// grouped, with and without bias and relu), linears (static and dynamic),
// adds, and quantize / dequantize, at random scales and zero points; and an
// input the operator refuses gives its error.
#include <string>
#include <vector>

#include "ATen/ATen.h"
#include "ATen/core/dispatch/Dispatcher.h"
#include "gtest/gtest.h"
#include "ops/core/out_variant_test_support.h"
#include "ops/core/registry.h"
#include "ops/kernels.h"
#include "rapidcheck.h"
#include "rapidcheck/gtest.h"

namespace static_runtime {
namespace {

using testing::Difference;
using testing::Draw;

// LibTorch's operator `name`.`overload` on `inputs` (its output), or its
// error as an exception.
c10::IValue Aten(const std::string& name, const std::string& overload,
                 const std::vector<c10::IValue>& inputs) {
  const c10::OperatorHandle op =
      c10::Dispatcher::singleton().findSchemaOrThrow(name.c_str(), overload.c_str());
  torch::jit::Stack stack(inputs.begin(), inputs.end());
  op.callBoxed(&stack);
  return stack[0];
}

// Our native kernel of `name`.`overload` on `inputs`: "" and its output in
// `slots`, or the error (or that there is no native kernel).
std::string RunNative(const std::string& name, const std::string& overload,
                      const std::vector<c10::IValue>& inputs, testing::Slots& slots) {
  testing::SingleNode single = testing::MakeNode(name, overload, inputs, 1);
  const std::optional<KernelRegistry::Selected> selected =
      GlobalKernels().Find(single.node, /*allow_out_variants=*/false);
  if (!selected || selected->kind != NodeKind::kNative) return "no native kernel for " + name;
  return slots.Run(selected->kernel, inputs);
}

// Our kernel's result equals LibTorch's (values, dtype, quantizer's scale
// and zero point), or both fail.
void CheckSame(const std::string& name, const std::string& overload,
               const std::vector<c10::IValue>& inputs) {
  std::string expected_error;
  c10::IValue expected;
  try {
    expected = Aten(name, overload, inputs);
  } catch (const std::exception& e) {
    expected_error = e.what();
  }
  testing::Slots slots(1);
  const std::string error = RunNative(name, overload, inputs, slots);
  RC_ASSERT(error.rfind("no native kernel", 0) == std::string::npos);
  if (!expected_error.empty()) {
    RC_ASSERT(!error.empty());
    return;
  }
  if (!error.empty()) RC_FAIL(name + ": " + error);
  const at::Tensor want = expected.toTensor();
  const at::Tensor got = slots.Output(0).toTensor();
  RC_ASSERT(got.is_quantized() == want.is_quantized());
  if (want.is_quantized()) {
    RC_ASSERT(got.q_scale() == want.q_scale());
    RC_ASSERT(got.q_zero_point() == want.q_zero_point());
    RC_ASSERT(Difference(want.int_repr(), got.int_repr()) == "");
  } else {
    RC_ASSERT(Difference(want, got) == "");
  }
}

// Each quantized engine this LibTorch has, set while `body` runs (and the
// engine before restored, even when `body` fails).
template <typename Body>
void ForEachEngine(Body body) {
  struct RestoreEngine {
    at::QEngine saved = at::globalContext().qEngine();
    ~RestoreEngine() { at::globalContext().setQEngine(saved); }
  } restore;
  for (const at::QEngine engine : at::globalContext().supportedQEngines()) {
    if (engine == at::QEngine::NoQEngine) continue;
    at::globalContext().setQEngine(engine);
    body(engine);
  }
}

// A quint8 activation of `shape` at a random scale and zero point.
at::Tensor DrawActivation(Draw& d, at::IntArrayRef shape) {
  const double scale = static_cast<double>(d.Int(1, 200)) / 1000.0;
  return at::quantize_per_tensor(at::randn(shape), scale, d.Int(0, 255), at::kQUInt8);
}

// A qint8 weight (zero point 0: what both engines take) of `shape`.
at::Tensor DrawWeight(Draw& d, at::IntArrayRef shape) {
  const double scale = static_cast<double>(d.Int(1, 100)) / 1000.0;
  return at::quantize_per_tensor(at::randn(shape), scale, 0, at::kQInt8);
}

c10::IValue OptionalBias(Draw& d, int64_t n) {
  return d.Bool() ? c10::IValue(at::randn({n})) : c10::IValue();
}

RC_GTEST_PROP(LibTorchQuantizedKernels, Conv2dEqualsLibTorch, ()) {
  ForEachEngine([](at::QEngine engine) {
    Draw d;
    const bool depthwise = d.Bool();
    const int64_t groups = depthwise ? d.Int(1, 8) : d.OneOf<int64_t>({1, 1, 2});
    const int64_t in_channels = groups * (depthwise ? 1 : d.Int(1, 6));
    const int64_t out_channels = groups * d.Int(1, 4);
    const int64_t kernel = d.Int(1, 3), stride = d.Int(1, 2), padding = d.Int(0, 1);
    const int64_t dilation = engine == at::QEngine::QNNPACK ? 1 : d.Int(1, 2);
    const int64_t height = d.Int(dilation * (kernel - 1) + 1, 9);
    const int64_t width = d.Int(dilation * (kernel - 1) + 1, 9);
    const c10::IValue packed = Aten(
        "quantized::conv2d_prepack", "",
        {DrawWeight(d, {out_channels, in_channels / groups, kernel, kernel}),
         OptionalBias(d, out_channels), std::vector<int64_t>{stride, stride},
         std::vector<int64_t>{padding, padding}, std::vector<int64_t>{dilation, dilation}, groups});
    const at::Tensor x = DrawActivation(d, {d.Int(1, 2), in_channels, height, width});
    const double scale = static_cast<double>(d.Int(1, 300)) / 1000.0;
    const int64_t zero_point = d.Int(0, 255);
    for (const char* op : {"quantized::conv2d", "quantized::conv2d_relu"}) {
      CheckSame(op, "new", {x, packed, scale, zero_point});
    }
  });
}

RC_GTEST_PROP(LibTorchQuantizedKernels, LinearEqualsLibTorch, ()) {
  ForEachEngine([](at::QEngine) {
    Draw d;
    const int64_t in_features = d.Int(1, 40), out_features = d.Int(1, 40);
    const at::Tensor weight = DrawWeight(d, {out_features, in_features});
    const c10::IValue bias = OptionalBias(d, out_features);
    // Static and dynamic products each get parameters of their own, as a
    // model's linears do: onednn's packed parameters, once applied to a
    // quantized input, give garbage to a dynamic call (LibTorch 1.13).
    auto pack = [&] { return Aten("quantized::linear_prepack", "", {weight, bias}); };
    const c10::IValue packed = pack();
    const at::Tensor x = DrawActivation(d, {d.Int(1, 5), in_features});
    const double scale = static_cast<double>(d.Int(1, 300)) / 1000.0;
    const int64_t zero_point = d.Int(0, 255);
    for (const char* op : {"quantized::linear", "quantized::linear_relu"}) {
      CheckSame(op, "", {x, packed, scale, zero_point});
    }
    const c10::IValue dynamic_packed = pack();
    const at::Tensor floats = d.Tensor({d.Int(1, 5), in_features}, at::kFloat);
    for (const char* op : {"quantized::linear_dynamic", "quantized::linear_relu_dynamic"}) {
      CheckSame(op, "", {floats, dynamic_packed, d.Bool()});
    }
  });
}

RC_GTEST_PROP(LibTorchQuantizedKernels, AddQuantizeAndDequantizeEqualLibTorch, ()) {
  ForEachEngine([](at::QEngine) {
    Draw d;
    const std::vector<int64_t> shape = d.Shape(d.Int(1, 4), 1, 6);
    const at::Tensor a = DrawActivation(d, shape);
    const at::Tensor b = DrawActivation(d, shape);
    const double scale = static_cast<double>(d.Int(1, 300)) / 1000.0;
    const int64_t zero_point = d.Int(0, 255);
    CheckSame("quantized::add", "", {a, b, scale, zero_point});
    CheckSame("quantized::add_relu", "", {a, b, scale, zero_point});
    const at::Tensor x = d.Tensor(shape, at::kFloat);
    CheckSame("aten::quantize_per_tensor", "",
              {x, scale, zero_point, d.OneOf<at::ScalarType>({at::kQUInt8, at::kQInt8})});
    CheckSame("aten::dequantize", "self", {a});
  });
}

TEST(LibTorchQuantizedKernels, RefusedInputsGiveLibTorchsError) {
  // A float tensor where a quantized one is due.
  const at::Tensor x = at::randn({1, 2, 4, 4});
  const at::Tensor w = at::quantize_per_tensor(at::randn({3, 2, 1, 1}), 0.1, 0, at::kQInt8);
  const c10::IValue packed = Aten("quantized::conv2d_prepack", "",
                                  {w, c10::IValue(), std::vector<int64_t>{1, 1},
                                   std::vector<int64_t>{0, 0}, std::vector<int64_t>{1, 1}, 1});
  testing::Slots slots(1);
  const std::string error = RunNative("quantized::conv2d", "new", {x, packed, 0.1, 0}, slots);
  EXPECT_NE(error, "");
  EXPECT_EQ(error.rfind("no native kernel", 0), std::string::npos) << error;
}

}  // namespace
}  // namespace static_runtime
