// FuseBatchNormRelu on DenseNet's pattern (a batch norm after a
// concatenation, then relu) and BatchNorm1d + ReLU: the rewritten graph, run
// by the JIT interpreter (static_runtime::batch_norm_relu is its reference,
// ATen's batch_norm then relu), gives the original graph's bits, NaN and
// zeros of both signs included; the golden cases (golden/passes/
// fuse_batch_norm_relu) say what must not fuse.
#include "passes/fuse_batch_norm_relu.h"

#include <memory>
#include <string>
#include <vector>

#include "ATen/ATen.h"
#include "gtest/gtest.h"
#include "ir/operators/operators.h"
#include "torch/csrc/jit/api/function_impl.h"
#include "torch/csrc/jit/ir/irparser.h"

namespace static_runtime {
namespace {

constexpr const char* kDenseBlock = R"IR(
graph(%x : Tensor, %y : Tensor, %w : Tensor, %b : Tensor, %mean : Tensor, %var : Tensor):
  %none : NoneType = prim::Constant()
  %false : bool = prim::Constant[value=0]()
  %momentum : float = prim::Constant[value=0.1]()
  %eps : float = prim::Constant[value=1.0000000000000001e-05]()
  %one : int = prim::Constant[value=1]()
  %list : Tensor[] = prim::ListConstruct(%x, %y)
  %cat : Tensor = aten::cat(%list, %one)
  %bn : Tensor = aten::batch_norm(%cat, %w, %b, %mean, %var, %false, %momentum, %eps, %false)
  %r : Tensor = aten::relu(%bn)
  %flat : Tensor = aten::flatten(%r, %one, %one)
  %outputs : (Tensor, Tensor) = prim::TupleConstruct(%r, %flat)
  return (%outputs)
)IR";

std::vector<at::Tensor> RunGraph(const std::shared_ptr<torch::jit::Graph>& graph,
                                 const std::vector<at::Tensor>& inputs) {
  torch::jit::Stack stack(inputs.begin(), inputs.end());
  torch::jit::GraphFunction function("forward", graph, nullptr);
  function.run(stack);
  std::vector<at::Tensor> outputs;
  for (const c10::IValue& value : stack.back().toTupleRef().elements()) {
    outputs.push_back(value.toTensor());
  }
  return outputs;
}

// The same bits, NaN where the other has NaN.
bool SameBits(const at::Tensor& a, const at::Tensor& b) {
  return a.sizes() == b.sizes() &&
         ((a.view(at::kInt) == b.view(at::kInt)) | (a.isnan() & b.isnan())).all().item<bool>();
}

TEST(FuseBatchNormReluTest, TheFusedGraphGivesTheOriginalsBits) {
  ops::EnsureOperatorsRegistered();
  auto original = std::make_shared<torch::jit::Graph>();
  torch::jit::parseIR(kDenseBlock, original.get());
  std::shared_ptr<torch::jit::Graph> fused = original->copy();
  ASSERT_TRUE(FuseBatchNormRelu(fused));
  const std::string ir = fused->toString();
  EXPECT_NE(ir.find("static_runtime::batch_norm_relu"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("aten::relu"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("aten::batch_norm"), std::string::npos) << ir;

  at::Tensor x = at::randn({2, 3, 5, 4});
  x[0][0][0][0] = NAN;
  x[1][2].fill_(-0.f);
  const at::Tensor y = at::randn({2, 5, 5, 4}).contiguous(at::MemoryFormat::ChannelsLast);
  for (const bool affine : {true, false}) {
    const at::Tensor w = affine ? at::randn({8}) : at::ones({8});
    const at::Tensor b = affine ? at::randn({8}) : at::zeros({8});
    const std::vector<at::Tensor> inputs = {x, y, w, b, at::randn({8}), at::rand({8}) + 0.5};
    const std::vector<at::Tensor> expected = RunGraph(original, inputs);
    const std::vector<at::Tensor> actual = RunGraph(fused, inputs);
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      EXPECT_TRUE(SameBits(actual[i], expected[i])) << "output " << i;
    }
  }
}

TEST(FuseBatchNormReluTest, AGraphWithoutThePatternIsUnchanged) {
  auto graph = std::make_shared<torch::jit::Graph>();
  torch::jit::parseIR(R"IR(
graph(%x : Tensor):
  %r : Tensor = aten::relu(%x)
  return (%r)
)IR",
                      graph.get());
  const std::string before = graph->toString();
  EXPECT_FALSE(FuseBatchNormRelu(graph));
  EXPECT_EQ(graph->toString(), before);
}

}  // namespace
}  // namespace static_runtime
