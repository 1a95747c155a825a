// FusedActivation::Parse: every activation conv2d_fused and linear_fused
// document, and a clear error for any other name, also from the JIT's
// operator.
#include "ir/operators/operators.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ATen/ATen.h"
#include "gtest/gtest.h"
#include "torch/csrc/jit/ir/irparser.h"
#include "torch/csrc/jit/runtime/graph_executor.h"

namespace static_runtime {
namespace {

using Kind = ops::FusedActivation::Kind;

TEST(FusedActivationTest, ParsesEveryDocumentedName) {
  const std::vector<std::pair<std::string, Kind>> names = {
      {"none", Kind::kNone},
      {"relu", Kind::kRelu},
      {"hardtanh", Kind::kHardtanh},
      {"hardswish", Kind::kHardswish},
      {"hardsigmoid", Kind::kHardsigmoid},
      {"sigmoid", Kind::kSigmoid},
      {"silu", Kind::kSilu},
      {"gelu", Kind::kGelu},
  };
  for (const auto& [name, kind] : names) {
    const ops::FusedActivation activation = ops::FusedActivation::Parse(name, -0.5, 2.0);
    EXPECT_EQ(activation.kind, kind) << name;
    EXPECT_EQ(activation.min_value, -0.5) << name;
    EXPECT_EQ(activation.max_value, 2.0) << name;
  }
}

TEST(FusedActivationTest, AnUnknownNameIsAnErrorThatNamesIt) {
  try {
    ops::FusedActivation::Parse("tanh", 0, 0);
    FAIL() << "no error";
  } catch (const c10::Error& error) {
    EXPECT_NE(std::string(error.what_without_backtrace()).find("unknown fused activation 'tanh'"),
              std::string::npos)
        << error.what_without_backtrace();
  }
}

TEST(FusedActivationTest, TheJitOperatorAppliesTheActivationAndRejectsAnUnknownOne) {
  ops::EnsureOperatorsRegistered();
  for (const std::string name : {"hardtanh", "swish"}) {
    auto graph = std::make_shared<torch::jit::Graph>();
    torch::jit::parseIR(R"IR(
      graph(%x : Tensor, %w : Tensor):
        %none : NoneType = prim::Constant()
        %act : str = prim::Constant[value=")IR" +
                            name + R"IR("]()
        %lo : float = prim::Constant[value=-0.5]()
        %hi : float = prim::Constant[value=0.5]()
        %y : Tensor = static_runtime::linear_fused(%x, %w, %none, %act, %lo, %hi)
        return (%y))IR",
                        graph.get());
    torch::jit::GraphExecutor executor(graph, "linear_fused");
    const at::Tensor x = at::randn({3, 4});
    const at::Tensor w = at::randn({5, 4});
    torch::jit::Stack stack = {x, w};
    if (name == "hardtanh") {
      executor.run(stack);
      EXPECT_TRUE(at::equal(stack.at(0).toTensor(), at::hardtanh(at::linear(x, w), -0.5, 0.5)));
    } else {
      try {
        executor.run(stack);
        ADD_FAILURE() << "no error for " << name;
      } catch (const std::exception& error) {
        EXPECT_NE(std::string(error.what()).find("unknown fused activation 'swish'"),
                  std::string::npos)
            << error.what();
      }
    }
  }
}

}  // namespace
}  // namespace static_runtime
