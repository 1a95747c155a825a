// FusePointwise on hand-built graphs: a fused node's first kUsedOutputs
// outputs are exactly the group values used after the group, whatever the
// order of their use lists. Use lists follow creation order, not graph
// order: a rewrite that makes a node inside the group use a value later
// puts that use after the value's outside uses.
#include "passes/fuse_pointwise.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "ir/operators/operators.h"
#include "torch/csrc/jit/ir/alias_analysis.h"
#include "torch/csrc/jit/ir/irparser.h"

namespace static_runtime {
namespace {

using torch::jit::Graph;
using torch::jit::Node;
using torch::jit::Value;

std::shared_ptr<Graph> Parse(const std::string& ir) {
  auto graph = std::make_shared<Graph>();
  torch::jit::parseIR(ir, graph.get());
  return graph;
}

Node* OnlyFusedNode(const std::shared_ptr<Graph>& graph) {
  Node* fused = nullptr;
  for (Node* node : graph->nodes()) {
    if (node->kind() != ops::kFusedPointwise) continue;
    EXPECT_EQ(fused, nullptr) << "two fused nodes in\n" << graph->toString();
    fused = node;
  }
  EXPECT_NE(fused, nullptr) << "no fused node in\n" << graph->toString();
  return fused;
}

// Every output of `fused` that something uses is among its first
// kUsedOutputs, and every one of those is used.
void ExpectUsedOutputsFirst(const std::shared_ptr<Graph>& graph, Node* fused) {
  const int64_t used = fused->i(ops::kUsedOutputs);
  for (size_t i = 0; i < fused->outputs().size(); ++i) {
    EXPECT_EQ(fused->output(i)->hasUses(), static_cast<int64_t>(i) < used)
        << "output " << i << " of " << fused->outputs().size() << ", " << used
        << " counted as used, in\n"
        << graph->toString();
  }
}

TEST(FusePointwiseTest, AValueUsedAfterTheGroupIsAnOutput) {
  // %a is used inside the group (by %c), then after it (by the sum).
  std::shared_ptr<Graph> graph = Parse(R"IR(
graph(%x : Tensor, %y : Tensor):
  %none : NoneType = prim::Constant()
  %a : Tensor = aten::tanh(%x)
  %b : Tensor = aten::sigmoid(%y)
  %c : Tensor = aten::mul(%a, %b)
  %s : Tensor = aten::sum(%a, %none)
  return (%c, %s))IR");
  ASSERT_TRUE(FusePointwise(graph));
  Node* fused = OnlyFusedNode(graph);
  EXPECT_EQ(fused->i(ops::kUsedOutputs), 2);
  ExpectUsedOutputsFirst(graph, fused);
}

TEST(FusePointwiseTest, AValueUsedAfterTheGroupIsAnOutputWhenItsInsideUseCameLater) {
  // As a rewrite leaves it: %a's use inside the group (%c = %a * %b, made
  // after the sum) comes after its use by the sum in its use list.
  std::shared_ptr<Graph> graph = Parse(R"IR(
graph(%x : Tensor, %y : Tensor):
  %none : NoneType = prim::Constant()
  %a : Tensor = aten::tanh(%x)
  %b : Tensor = aten::sigmoid(%y)
  %c : Tensor = aten::mul(%b, %b)
  %s : Tensor = aten::sum(%a, %none)
  return (%c, %s))IR");
  Node* sum = graph->outputs()[1]->node();
  Value* a = sum->input(0);
  graph->outputs()[0]->node()->replaceInput(0, a);
  ASSERT_EQ(a->uses().size(), 2u);
  ASSERT_EQ(a->uses()[0].user, sum) << "the outside use must come first";
  ASSERT_TRUE(FusePointwise(graph));
  Node* fused = OnlyFusedNode(graph);
  EXPECT_EQ(fused->i(ops::kUsedOutputs), 2);
  ExpectUsedOutputsFirst(graph, fused);
}

TEST(FusePointwiseTest, ValuesOnlyTheGroupUsesAreInternal) {
  std::shared_ptr<Graph> graph = Parse(R"IR(
graph(%x : Tensor):
  %a : Tensor = aten::tanh(%x)
  %b : Tensor = aten::sigmoid(%a)
  %c : Tensor = aten::mul(%b, %a)
  return (%c))IR");
  ASSERT_TRUE(FusePointwise(graph));
  Node* fused = OnlyFusedNode(graph);
  EXPECT_EQ(fused->i(ops::kUsedOutputs), 1);
  EXPECT_EQ(fused->outputs().size(), 3u);
  ExpectUsedOutputsFirst(graph, fused);
}

// A conversion (`to`) returns its input when the dtype already matches, so
// it is fused only if nothing writes its input's or its result's memory.
// Alias analysis counts a write to the result as a writer of the input too
// (the result may be the input), so either check alone refuses it.
TEST(FusePointwiseTest, AConversionWhoseResultIsWrittenIsNotFused) {
  std::shared_ptr<Graph> graph = Parse(R"IR(
graph(%x : Tensor):
  %none : NoneType = prim::Constant()
  %false : bool = prim::Constant[value=0]()
  %float : int = prim::Constant[value=6]()
  %zero : float = prim::Constant[value=0.]()
  %two : float = prim::Constant[value=2.]()
  %b : Tensor = aten::gt(%x, %zero)
  %t : Tensor = aten::to(%b, %float, %false, %false, %none)
  %w : Tensor = aten::mul_(%t, %two)
  return (%w))IR");
  Node* to = nullptr;
  for (Node* node : graph->nodes()) {
    if (node->kind() == c10::aten::to) to = node;
  }
  ASSERT_NE(to, nullptr);
  {
    const torch::jit::AliasDb alias_db(graph);
    EXPECT_TRUE(alias_db.hasWriters(to->output()));
    EXPECT_TRUE(alias_db.hasWriters(to->input(0)));
    EXPECT_NE(WhyNotFusible(to, alias_db), "");
  }
  EXPECT_FALSE(FusePointwise(graph)) << graph->toString();
}

TEST(FusePointwiseTest, AConversionOfAComparisonIsFused) {
  std::shared_ptr<Graph> graph = Parse(R"IR(
graph(%x : Tensor):
  %none : NoneType = prim::Constant()
  %false : bool = prim::Constant[value=0]()
  %float : int = prim::Constant[value=6]()
  %zero : float = prim::Constant[value=0.]()
  %b : Tensor = aten::gt(%x, %zero)
  %t : Tensor = aten::to(%b, %float, %false, %false, %none)
  return (%t))IR");
  EXPECT_TRUE(FusePointwise(graph)) << graph->toString();
}

}  // namespace
}  // namespace static_runtime
