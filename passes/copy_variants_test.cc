// UseCopyVariants on hand-written graphs: a view nobody can observe becomes
// its copy; a view written in place stays a view (the write must reach its
// base). The pass checks writers of the view's input and of the view; alias
// analysis (torch::jit::AliasDb) counts a write through the view as a
// writer of its input too, so either check alone keeps the view (the
// second test shows that premise).
#include "passes/copy_variants.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "torch/csrc/jit/ir/alias_analysis.h"
#include "torch/csrc/jit/ir/irparser.h"

namespace static_runtime {
namespace {

using torch::jit::Graph;
using torch::jit::Node;

std::shared_ptr<Graph> Parse(const std::string& ir) {
  auto graph = std::make_shared<Graph>();
  torch::jit::parseIR(ir, graph.get());
  return graph;
}

size_t Count(const std::shared_ptr<Graph>& graph, const char* kind) {
  size_t count = 0;
  for (const Node* node : graph->nodes()) {
    if (node->kind() == c10::Symbol::fromQualString(kind)) ++count;
  }
  return count;
}

// A permute of a fresh value, read by softmax (which lays its result out
// afresh), with `extra` lines after it.
std::shared_ptr<Graph> PermuteThen(const std::string& extra) {
  return Parse(R"IR(
graph(%x : Tensor):
  %none : NoneType = prim::Constant()
  %one : int = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %dims : int[] = prim::ListConstruct(%one, %zero)
  %a : Tensor = aten::relu(%x)
  %p : Tensor = aten::permute(%a, %dims)
)IR" + extra + R"IR(
  %y : Tensor = aten::softmax(%p, %one, %none)
  %z : Tensor = aten::softmax(%a, %one, %none)
  return (%y, %z))IR");
}

TEST(CopyVariantsTest, AViewNobodyObservesBecomesACopy) {
  std::shared_ptr<Graph> graph = PermuteThen("");
  EXPECT_TRUE(UseCopyVariants(graph));
  EXPECT_EQ(Count(graph, "aten::permute"), 0u) << graph->toString();
  EXPECT_EQ(Count(graph, "static_runtime::copy_permute"), 1u) << graph->toString();
}

TEST(CopyVariantsTest, AViewWrittenInPlaceStaysAView) {
  std::shared_ptr<Graph> graph = PermuteThen("  %w : Tensor = aten::add_(%p, %one, %one)\n");
  {
    // The premise: a write through the view is a writer of its input.
    const torch::jit::AliasDb alias_db(graph);
    const Node* permute = nullptr;
    for (const Node* node : graph->nodes()) {
      if (node->kind() == c10::aten::permute) permute = node;
    }
    ASSERT_NE(permute, nullptr);
    EXPECT_TRUE(alias_db.hasWriters(permute->output()));
    EXPECT_TRUE(alias_db.hasWriters(permute->input(0)));
  }
  EXPECT_FALSE(UseCopyVariants(graph));
  EXPECT_EQ(Count(graph, "aten::permute"), 1u) << graph->toString();
}

// contiguous() of `input`, read by softmax.
std::shared_ptr<Graph> ContiguousOf(const std::string& input, const std::string& format) {
  return Parse(R"IR(
graph(%x : Tensor):
  %none : NoneType = prim::Constant()
  %one : int = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %format : int = prim::Constant[value=)IR" +
               format + R"IR(]()
  %t : Tensor = aten::transpose(%x, %zero, %one)
  %c : Tensor = aten::contiguous()IR" +
               input + R"IR(, %format)
  %y : Tensor = aten::softmax(%c, %one, %none)
  return (%y))IR");
}

TEST(CopyVariantsTest, ContiguousOfAStridedViewBecomesACopy) {
  std::shared_ptr<Graph> graph = ContiguousOf("%t", "0");
  EXPECT_TRUE(UseCopyVariants(graph));
  EXPECT_EQ(Count(graph, "static_runtime::copy_contiguous"), 1u) << graph->toString();
}

TEST(CopyVariantsTest, AReductionPastALinearFusedDoesNotObserveTheCopysMemoryOrder) {
  // linear_fused lays its result out afresh: the mean after it adds in an
  // order the copy cannot change.
  std::shared_ptr<Graph> graph = Parse(R"IR(
graph(%x : Tensor, %w : Tensor):
  %none : NoneType = prim::Constant()
  %one : int = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %format : int = prim::Constant[value=0]()
  %act : str = prim::Constant[value="none"]()
  %lo : float = prim::Constant[value=0.]()
  %t : Tensor = aten::transpose(%x, %zero, %one)
  %c : Tensor = aten::contiguous(%t, %format)
  %y : Tensor = static_runtime::linear_fused(%c, %w, %none, %act, %lo, %lo)
  %m : Tensor = aten::mean(%y, %none)
  return (%m))IR");
  EXPECT_TRUE(UseCopyVariants(graph));
  EXPECT_EQ(Count(graph, "static_runtime::copy_contiguous"), 1u) << graph->toString();
}

TEST(CopyVariantsTest, ContiguousStaysWhereItsInputIsUsuallyContiguousOrTheFormatIsOther) {
  // The caller's tensor: contiguous() returns it.
  std::shared_ptr<Graph> graph = ContiguousOf("%x", "0");
  EXPECT_FALSE(UseCopyVariants(graph));
  EXPECT_EQ(Count(graph, "aten::contiguous"), 1u) << graph->toString();
  // channels_last (2): the copy variant makes contiguous tensors only.
  graph = ContiguousOf("%t", "2");
  EXPECT_FALSE(UseCopyVariants(graph));
  EXPECT_EQ(Count(graph, "aten::contiguous"), 1u) << graph->toString();
}

}  // namespace
}  // namespace static_runtime
