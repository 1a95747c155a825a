// quantized::linear_dynamic's kernel against LibTorch's op on the onednn
// engine, bit for bit: random weights (per-tensor and per-channel scales),
// biases, inputs of any range (all positive, all zero, wide, tiny), row
// counts, leading dimensions, reduce_range, and products long enough that
// the int32 sums pass float's 24 bits; and the inputs left to LibTorch's op.
// :dynamic_linear_avx2_test runs it with oneDNN held to AVX2 (no VNNI),
// where the kernel must decline every node.
#include "ops/quantized/dynamic_linear.h"

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
#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {
namespace {

using testing::Difference;
using testing::Draw;

c10::IValue Aten(const char* name, std::vector<c10::IValue> inputs) {
  const c10::OperatorHandle op = c10::Dispatcher::singleton().findSchemaOrThrow(name, "");
  torch::jit::Stack stack(std::move(inputs));
  op.callBoxed(&stack);
  return stack[0];
}

// A graph of one `op` node whose packed parameters and reduce_range are
// constants (as in a frozen model) and whose input is the graph's; the kernel
// bound to it.
struct Bound {
  std::shared_ptr<torch::jit::Graph> graph = std::make_shared<torch::jit::Graph>();
  Kernel kernel;
};
Bound Bind(const char* op, const c10::IValue& params, bool reduce_range) {
  Bound bound;
  torch::jit::Value* input = bound.graph->addInput()->setType(c10::TensorType::get());
  torch::jit::Value* packed = bound.graph->insertConstant(params);
  torch::jit::Value* reduce = bound.graph->insertConstant(reduce_range);
  torch::jit::Node* node =
      bound.graph->create(c10::Symbol::fromQualString(op), {input, packed, reduce}, 1);
  bound.graph->insertNode(node);
  node->output()->setType(c10::TensorType::get());
  bound.graph->registerOutput(node->output());
  const std::optional<KernelRegistry::Selected> selected =
      GlobalKernels().Find(node, /*allow_out_variants=*/true);
  if (selected && selected->kind == NodeKind::kOutVariant) bound.kernel = selected->kernel;
  return bound;
}

c10::IValue DrawPackedParams(Draw& d, int64_t n, int64_t k) {
  const at::Tensor weight = d.ContiguousTensor({n, k}, at::kFloat) * std::pow(10.0, d.Int(-2, 1));
  at::Tensor quantized;
  if (d.Bool()) {
    quantized = at::quantize_per_tensor(weight, weight.abs().max().item<double>() / 127 + 1e-6, 0,
                                        at::kQInt8);
  } else {
    const at::Tensor scales = weight.abs().amax(1).to(at::kDouble) / 127 + 1e-6;
    quantized = at::quantize_per_channel(weight, scales, at::zeros({n}, at::kLong), 0, at::kQInt8);
  }
  c10::optional<at::Tensor> bias;
  if (d.Bool()) bias = d.ContiguousTensor({n}, at::kFloat) * std::pow(10.0, d.Int(-2, 2));
  return Aten("quantized::linear_prepack", {quantized, bias});
}

at::Tensor DrawInput(Draw& d, int64_t k) {
  std::vector<int64_t> shape = d.Shape(d.Int(1, 2), 1, 5);
  shape.push_back(k);
  switch (d.Int(0, 7)) {
    case 6:  // one sign, tiny: the smallest scale LibTorch takes
      return -d.ContiguousTensor(shape, at::kFloat).abs() * std::pow(10.0, d.Int(-5, -2));
    case 5:  // an LSTM's hidden state: in (-1, 1), sometimes tiny
      return at::tanh(d.ContiguousTensor(shape, at::kFloat)) * std::pow(10.0, d.Int(-5, 0));
    case 0:
      return d.ContiguousTensor(shape, at::kFloat).abs() * 3;  // all positive
    case 1:
      return at::zeros(shape);  // no range: scale 0.1
    case 2:
      return d.ContiguousTensor(shape, at::kFloat) * 1e-6;
    default:
      return d.ContiguousTensor(shape, at::kFloat) * std::pow(10.0, d.Int(-1, 3));
  }
}

class DynamicLinearTest : public ::testing::Test {
 protected:
  void SetUp() override { at::globalContext().setQEngine(at::QEngine::ONEDNN); }
};

RC_GTEST_FIXTURE_PROP(DynamicLinearTest, EqualsLibTorchBitForBit, ()) {
  Draw d;
  const int64_t n = d.Int(1, 70);
  const int64_t k = d.OneOf<int64_t>({1, 2, 3, 16, 64, 200, 1500});
  const c10::IValue params = DrawPackedParams(d, n, k);
  const bool reduce_range = d.Bool();
  const bool relu = d.Bool();
  const char* op = relu ? "quantized::linear_relu_dynamic" : "quantized::linear_dynamic";
  const Bound bound = Bind(op, params, reduce_range);
  RC_ASSERT(static_cast<bool>(bound.kernel) == quantized::ExactIntegerProducts());
  if (!bound.kernel) return;
  testing::Slots slots(1);
  for (int call = 0; call < 2; ++call) {  // the second into the first's output
    const at::Tensor input = DrawInput(d, k);
    RC_LOG() << op << " " << input.sizes() << " by " << n << " reduce_range " << reduce_range
             << "\n";
    const c10::IValue expected = Aten(op, {input, params, reduce_range});
    RC_ASSERT(slots.Run(bound.kernel, {input, params, reduce_range}) == "");
    const std::string difference = Difference(expected, slots.Output(0));
    RC_LOG() << difference << "\n";
    RC_ASSERT(difference == "");
  }
}

TEST_F(DynamicLinearTest, InputsItDoesNotTakeRunLibTorchsOp) {
  const c10::IValue params = Aten("quantized::linear_prepack",
                                  {at::quantize_per_tensor(at::randn({4, 3}), 0.02, 0, at::kQInt8),
                                   c10::optional<at::Tensor>()});
  const Bound bound = Bind("quantized::linear_dynamic", params, false);
  ASSERT_EQ(static_cast<bool>(bound.kernel), quantized::ExactIntegerProducts());
  if (!bound.kernel) GTEST_SKIP() << "no VNNI: the kernel declines every node";
  testing::Slots slots(1);
  // A wrong width: LibTorch's error.
  EXPECT_NE(slots.Run(bound.kernel, {at::randn({2, 5}), params, false}), "");
  // Non-finite inputs (an infinity, or a NaN in the vector loop or its
  // tail, which min and max alone would drop): LibTorch's error.
  for (const at::Tensor& bad :
       {at::tensor({1.0f, INFINITY, 0.5f}).unsqueeze(0), at::tensor({1.0f, NAN, 0.5f}).unsqueeze(0),
        at::full({4, 3}, 0.5f).index_put_({1, 2}, NAN)}) {
    std::string aten_error;
    try {
      Aten("quantized::linear_dynamic", {bad, params, false});
    } catch (const std::exception& e) {
      aten_error = e.what();
    }
    const std::string error = slots.Run(bound.kernel, {bad, params, false});
    EXPECT_FALSE(error.empty()) << bad;
    EXPECT_NE(aten_error.find(error.substr(0, 20)), std::string::npos) << error;
  }
  // Still usable.
  const at::Tensor input = at::randn({2, 3});
  EXPECT_EQ(slots.Run(bound.kernel, {input, params, false}), "");
  EXPECT_EQ(Difference(Aten("quantized::linear_dynamic", {input, params, false}), slots.Output(0)),
            "");
}

TEST_F(DynamicLinearTest, QnnpackParametersAreLeftToLibTorch) {
  at::globalContext().setQEngine(at::QEngine::QNNPACK);
  const c10::IValue params = Aten("quantized::linear_prepack",
                                  {at::quantize_per_tensor(at::randn({4, 3}), 0.02, 0, at::kQInt8),
                                   c10::optional<at::Tensor>()});
  EXPECT_FALSE(static_cast<bool>(Bind("quantized::linear_dynamic", params, false).kernel));
}

}  // namespace
}  // namespace static_runtime
