// FoldConvBatchNormPastRankChecks on the graph freezing leaves for a
// DenseNet layer: a convolution whose result is both checked for rank (an
// If on aten::dim, as nn.BatchNorm2d's check is) and batch-normed. The
// batch norm is folded, the result stays the same within rounding, a
// wrongly ranked input still fails with the same error; a convolution whose
// result is used otherwise keeps its batch norm.
#include "passes/fold_conv_batch_norm.h"

#include <string>
#include <vector>

#include "ATen/ATen.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "torch/csrc/jit/ir/irparser.h"
#include "torch/csrc/jit/runtime/interpreter.h"

namespace static_runtime {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// %y: the convolution; `returns`: the graph's outputs.
std::string LayerIR(const std::string& returns) {
  return R"IR(
graph(%x : Tensor, %w : Tensor, %b : Tensor, %g : Tensor, %beta : Tensor, %mean : Tensor,
      %var : Tensor):
  %one : int[] = prim::Constant[value=[1, 1]]()
  %zero : int[] = prim::Constant[value=[0, 0]]()
  %groups : int = prim::Constant[value=1]()
  %four : int = prim::Constant[value=4]()
  %false : bool = prim::Constant[value=0]()
  %momentum : float = prim::Constant[value=0.1]()
  %eps : float = prim::Constant[value=1e-05]()
  %message : str = prim::Constant[value="expected 4D input"]()
  %none : NoneType = prim::Constant()
  %y : Tensor = aten::conv2d(%x, %w, %b, %one, %zero, %one, %groups)
  %rank : int = aten::dim(%y)
  %bad : bool = aten::ne(%rank, %four)
  %checked : NoneType = prim::If(%bad)
    block0():
      prim::RaiseException(%message, %none)
      -> (%none)
    block1():
      -> (%none)
  %z : Tensor = aten::batch_norm(%y, %g, %beta, %mean, %var, %false, %momentum, %eps, %false)
  return ()IR" +
         returns + ")\n";
}

// The graph with its parameters (inputs 1-6) made constants, as freezing does.
std::shared_ptr<torch::jit::Graph> FrozenLayer(const std::string& returns) {
  auto graph = std::make_shared<torch::jit::Graph>();
  torch::jit::parseIR(LayerIR(returns), graph.get());
  const std::vector<at::Tensor> parameters = {at::randn({4, 3, 3, 3}), at::randn({4}),
                                              at::randn({4}),          at::randn({4}),
                                              at::randn({4}),          at::rand({4}) + 0.5};
  torch::jit::WithInsertPoint start(graph->block()->nodes().front());
  for (size_t i = 0; i < parameters.size(); ++i) {
    graph->inputs()[1]->replaceAllUsesWith(graph->insertConstant(parameters[i]));
    graph->eraseInput(1);
  }
  return graph;
}

torch::jit::Stack RunGraph(const std::shared_ptr<torch::jit::Graph>& graph, const at::Tensor& x) {
  torch::jit::Code code(graph, "layer");
  torch::jit::Stack stack = {x};
  torch::jit::InterpreterState(code).run(stack);
  return stack;
}

std::string ErrorOf(const std::shared_ptr<torch::jit::Graph>& graph, const at::Tensor& x) {
  try {
    RunGraph(graph, x);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(FoldConvBatchNormTest, FoldsPastTheRankCheck) {
  std::shared_ptr<torch::jit::Graph> graph = FrozenLayer("%z");
  const std::shared_ptr<torch::jit::Graph> original = graph->copy();
  EXPECT_TRUE(FoldConvBatchNormPastRankChecks(graph));
  graph->lint();
  EXPECT_THAT(graph->toString(), Not(HasSubstr("aten::batch_norm"))) << graph->toString();

  const at::Tensor x = at::randn({2, 3, 8, 8});
  EXPECT_TRUE(at::allclose(RunGraph(graph, x).at(0).toTensor(),
                           RunGraph(original, x).at(0).toTensor(), 1e-5, 1e-5));
  // Unbatched: the convolution gives a 3-D result and the check raises.
  EXPECT_THAT(ErrorOf(graph, at::randn({3, 8, 8})), HasSubstr("expected 4D input"));
  // Rank 2: the convolution's own error comes first, as before.
  const std::string conv_error = ErrorOf(original, at::randn({8, 8}));
  ASSERT_FALSE(conv_error.empty());
  EXPECT_EQ(ErrorOf(graph, at::randn({8, 8})), conv_error);
}

TEST(FoldConvBatchNormTest, LeavesAConvolutionWhoseResultIsUsedOtherwise) {
  std::shared_ptr<torch::jit::Graph> graph = FrozenLayer("%z, %y");
  EXPECT_FALSE(FoldConvBatchNormPastRankChecks(graph));
  EXPECT_THAT(graph->toString(), HasSubstr("aten::batch_norm"));
}

}  // namespace
}  // namespace static_runtime
