// The oneDNN kernel of static_runtime::linear_fused (ops/linalg/onednn_linear.cc)
// against a float64 reference within the bound it declares
// (ops/linalg/linear_error_bound.h), which ATen's own linear must meet too, over random
// row counts, leading dimensions, non-contiguous inputs, bias or none and
// activations, with output slots reused across calls; inputs with rows of
// zeros (which the kernel leaves out of the product); ATen's errors for
// inputs a linear rejects; and one kernel (one packed weight) run from
// several threads at once.
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "ATen/ATen.h"
#include "gtest/gtest.h"
#include "ir/operators/operators.h"
#include "ops/core/out_variant_test_support.h"
#include "ops/core/registry.h"
#include "ops/kernels.h"
#include "ops/linalg/linear_error_bound.h"
#include "rapidcheck.h"
#include "rapidcheck/gtest.h"
#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {
namespace {

using testing::Draw;
using testing::SingleNode;
using testing::Slots;

struct LinearCase {
  at::Tensor weight;
  c10::optional<at::Tensor> bias;
  std::string activation;
  double min_value = 0, max_value = 0;
};

SingleNode MakeLinearGraph(const LinearCase& c) {
  ops::EnsureOperatorsRegistered();
  auto graph = std::make_shared<torch::jit::Graph>();
  torch::jit::Value* input = graph->addInput("x")->setType(c10::TensorType::get());
  std::vector<torch::jit::Value*> inputs = {
      input,
      graph->insertConstant(c.weight),
      graph->insertConstant(c.bias ? c10::IValue(*c.bias) : c10::IValue()),
      graph->insertConstant(c.activation),
      graph->insertConstant(c.min_value),
      graph->insertConstant(c.max_value)};
  torch::jit::Node* node = graph->insertNode(graph->create(ops::kLinearFused, inputs, 1));
  node->output()->setType(c10::TensorType::get());
  graph->registerOutput(node->output());
  auto selected = GlobalKernels().Find(node, /*allow_out_variants=*/true);
  EXPECT_TRUE(selected.has_value() && selected->kind == NodeKind::kOutVariant &&
              selected->error_bound);
  return {graph, node, selected ? selected->kernel : Kernel()};
}

at::Tensor Exact(const LinearCase& c, const at::Tensor& x) {
  const auto dbl = [](const at::Tensor& t) { return t.to(at::kDouble); };
  return ops::LinearFusedReference(
      dbl(x), dbl(c.weight), c.bias ? c10::optional<at::Tensor>(dbl(*c.bias)) : c10::nullopt,
      ops::FusedActivation::Parse(c.activation, c.min_value, c.max_value));
}

RC_GTEST_PROP(OneDnnLinearProperty, WithinTheDeclaredBoundOfTheExactResult, ()) {
  at::manual_seed(*rc::gen::inRange(0, 1 << 20));
  Draw d;
  LinearCase c;
  const int64_t k = d.Int(1, 70), n = d.Int(1, 40);
  c.weight = at::randn({n, k});
  if (d.Bool()) c.bias = at::randn({n});
  c.activation = d.OneOf<std::string>(
      {"none", "relu", "hardtanh", "hardswish", "hardsigmoid", "sigmoid", "silu", "gelu"});
  if (c.activation == "hardtanh") {
    c.min_value = -d.Int(0, 2) / 2.0;
    c.max_value = d.Int(1, 12) / 2.0;
  }
  SingleNode linear = MakeLinearGraph(c);
  Slots slots(1);
  // Several calls on one set of slots: row counts and ranks change.
  for (int call = 0; call < 3; ++call) {
    std::vector<int64_t> shape;
    for (int64_t dims = d.Int(0, 2); dims > 0; --dims) shape.push_back(d.Int(1, 9));
    shape.push_back(k);
    at::Tensor x = at::randn(shape);
    if (x.dim() >= 2 && d.Bool())
      x = at::randn(shape).transpose(-1, -2).contiguous().transpose(-1, -2);
    const std::vector<c10::IValue> inputs = testing::InputsAfterConstants(linear.node, x);
    RC_ASSERT(slots.Run(linear.kernel, inputs) == "");
    const at::Tensor actual = slots.Output(0).toTensor();
    const at::Tensor exact = Exact(c, x);
    const std::string ours =
        testing::OutsideBound(ops::LinearFusedErrorBound, inputs, exact, actual);
    if (!ours.empty()) {
      RC_FAIL(c10::str("oneDNN kernel: ", ours, " weight ", c.weight.sizes(), " ", c.activation,
                       " input ", x.sizes(), " strides ", x.strides(), " call ", call));
    }
    const at::Tensor aten = ops::LinearFusedReference(
        x, c.weight, c.bias, ops::FusedActivation::Parse(c.activation, c.min_value, c.max_value));
    const std::string atens =
        testing::OutsideBound(ops::LinearFusedErrorBound, inputs, exact, aten);
    if (!atens.empty()) RC_FAIL("ATen's linear: " + atens);
  }
}

// Products too large for the streamed product, among them many rows into 1024
// or more outputs, or 512 (where oneDNN's gemm-based matmul takes the weight
// as stored): within the bound, for row counts on both sides of that choice.
TEST(OneDnnLinearTest, ManyRowsIntoManyOutputsWithinTheDeclaredBound) {
  for (const auto& [k, n] : {std::pair<int64_t, int64_t>{96, 1024}, {64, 1100}, {80, 512}}) {
    LinearCase c;
    c.weight = at::randn({n, k});
    c.bias = at::randn({n});
    c.activation = "relu";
    SingleNode linear = MakeLinearGraph(c);
    Slots slots(1);
    for (const int64_t rows : {8, 63, 64, 200}) {
      const at::Tensor x = at::randn({rows, k});
      const std::vector<c10::IValue> inputs = testing::InputsAfterConstants(linear.node, x);
      ASSERT_EQ(slots.Run(linear.kernel, inputs), "");
      EXPECT_EQ(testing::OutsideBound(ops::LinearFusedErrorBound, inputs, Exact(c, x),
                                      slots.Output(0).toTensor()),
                "")
          << rows << " x " << k << " -> " << n;
    }
  }
}

// Weights of 1 MiB or more on few rows (ops::StreamedLinear's products: up
// to 16 rows on CPUs with AVX-512, 8 on the others), leading dimensions
// included, and on one row more than it takes: within the bound.
TEST(OneDnnLinearTest, LargeWeightsOnFewRowsWithinTheDeclaredBound) {
  for (const auto& [k, n] : {std::pair<int64_t, int64_t>{1024, 256}, {300, 1000}, {2048, 130}}) {
    LinearCase c;
    c.weight = at::randn({n, k});
    if (n != 1000) c.bias = at::randn({n});
    c.activation = n == 130 ? "gelu" : "relu";
    SingleNode linear = MakeLinearGraph(c);
    Slots slots(1);
    for (const std::vector<int64_t>& shape : std::vector<std::vector<int64_t>>{
             {1, k}, {3, k}, {8, k}, {9, k}, {2, 5, k}, {16, k}, {17, k}, {k}}) {
      const at::Tensor x = at::randn(shape);
      const std::vector<c10::IValue> inputs = testing::InputsAfterConstants(linear.node, x);
      ASSERT_EQ(slots.Run(linear.kernel, inputs), "");
      EXPECT_EQ(testing::OutsideBound(ops::LinearFusedErrorBound, inputs, Exact(c, x),
                                      slots.Output(0).toTensor()),
                "")
          << x.sizes() << " -> " << n;
    }
  }
}

// An input of `rows` rows of `k` values in which each row is zero with
// probability `zero_share`, half of those -0.
at::Tensor RowsWithZeros(Draw& d, int64_t rows, int64_t k, double zero_share) {
  at::Tensor x = at::randn({rows, k});
  for (int64_t r = 0; r < rows; ++r) {
    if (d.Int(0, 99) < zero_share * 100) x[r].fill_(d.Bool() ? 0.0 : -0.0);
  }
  return x;
}

// Rows of zeros, from none to all and in any order, on products large enough
// for oneDNN (where they are left out of the product): within the bound,
// calls of several zero patterns on one kernel.
RC_GTEST_PROP(OneDnnLinearProperty, RowsOfZerosWithinTheDeclaredBound, ()) {
  at::manual_seed(*rc::gen::inRange(0, 1 << 20));
  Draw d;
  LinearCase c;
  const int64_t k = d.Int(48, 96), n = d.Int(48, 96);
  c.weight = at::randn({n, k});
  if (d.Bool()) c.bias = at::randn({n});
  c.activation = d.OneOf<std::string>({"none", "relu", "sigmoid", "gelu"});
  SingleNode linear = MakeLinearGraph(c);
  Slots slots(1);
  for (int call = 0; call < 3; ++call) {
    const double zero_share = d.OneOf<double>({0.0, 0.3, 0.6, 0.9, 1.0});
    at::Tensor x = RowsWithZeros(d, 2 * d.Int(20, 80), k, zero_share);
    if (d.Bool()) x = x.view({2, -1, k});
    const std::vector<c10::IValue> inputs = testing::InputsAfterConstants(linear.node, x);
    RC_ASSERT(slots.Run(linear.kernel, inputs) == "");
    const std::string ours = testing::OutsideBound(ops::LinearFusedErrorBound, inputs, Exact(c, x),
                                                   slots.Output(0).toTensor());
    if (!ours.empty()) {
      RC_FAIL(c10::str(ours, " weight ", c.weight.sizes(), " ", c.activation, " input ", x.sizes(),
                       " zero share ", zero_share, " call ", call));
    }
  }
}

// 0 x inf and 0 x NaN are NaN: a weight holding them gives NaN in zero rows,
// as ATen's linear does.
TEST(OneDnnLinearTest, NonFiniteWeightsGiveAtensNaNInZeroRows) {
  at::Tensor x = at::randn({96, 64});
  for (int64_t r = 0; r < 96; ++r) {
    if (r % 5 != 0) x[r].fill_(r % 2 == 0 ? 0.0 : -0.0);
  }
  for (const float poison : {std::numeric_limits<float>::infinity(), std::nanf("")}) {
    LinearCase c;
    c.weight = at::randn({64, 64});
    c.weight[5][7] = poison;
    c.bias = at::randn({64});
    c.activation = "none";
    SingleNode linear = MakeLinearGraph(c);
    Slots slots(1);
    ASSERT_EQ(slots.Run(linear.kernel, testing::InputsAfterConstants(linear.node, x)), "");
    const at::Tensor expected = at::linear(x, c.weight, c.bias);
    ASSERT_TRUE(expected.isnan().any().item<bool>());
    EXPECT_TRUE(at::equal(slots.Output(0).toTensor().isnan(), expected.isnan())) << poison;
  }
}

TEST(OneDnnLinearTest, RejectsWhatAtenRejectsWithAtensMessage) {
  LinearCase c;
  c.weight = at::randn({4, 3});
  c.activation = "relu";
  SingleNode linear = MakeLinearGraph(c);
  Slots slots(1);
  // 2 features where the weight wants 3; an integer input; a 0-d input.
  for (const at::Tensor& x : {at::randn({5, 2}), at::ones({5, 3}, at::kLong), at::randn({})}) {
    EXPECT_EQ(testing::RejectsAsAten([&] { at::linear(x, c.weight); }, slots, linear.kernel,
                                     testing::InputsAfterConstants(linear.node, x)),
              "");
  }
  // The kernel stays usable; no rows give ATen's empty result.
  EXPECT_EQ(slots.Run(linear.kernel, testing::InputsAfterConstants(linear.node, at::randn({2, 3}))),
            "");
  EXPECT_EQ(slots.Run(linear.kernel, testing::InputsAfterConstants(linear.node, at::randn({0, 3}))),
            "");
  EXPECT_EQ(slots.Output(0).toTensor().sizes(), at::IntArrayRef({0, 4}));
}

TEST(OneDnnLinearTest, OneKernelRunsOnSeveralThreadsAtOnce) {
  LinearCase c;
  c.weight = at::randn({64, 48});
  c.bias = at::randn({64});
  c.activation = "relu";
  SingleNode linear = MakeLinearGraph(c);
  const std::vector<at::Tensor> inputs = {at::randn({1, 48}), at::randn({7, 48}),
                                          at::randn({2, 5, 48}), at::randn({48})};
  std::vector<std::vector<c10::IValue>> input_sets;
  for (const at::Tensor& x : inputs)
    input_sets.push_back(testing::InputsAfterConstants(linear.node, x));
  const std::vector<std::string> failures =
      testing::SameResultsOnSeveralThreads(linear.kernel, input_sets);
  for (size_t t = 0; t < inputs.size(); ++t) EXPECT_EQ(failures[t], "") << "thread " << t;
}

}  // namespace
}  // namespace static_runtime
