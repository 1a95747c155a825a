#include "runtime/reports/explain.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace static_runtime {
namespace reports {
namespace {

using testing::HasSubstr;

TEST(ExplainTest, KindsReasonsAndDot) {
  auto module = StaticModule::FromIR(R"IR(
graph(%x : Tensor, %w : Tensor, %n : int):
  %one : int = prim::Constant[value=1]()
  %y : Tensor = aten::mv(%x, %w)
  %z : Tensor = aten::relu(%y)
  %m : int = aten::add(%n, %one)
  return (%z, %m))IR");
  ASSERT_TRUE(module.ok()) << module.status();
  const std::string text = Explain(**module);
  EXPECT_THAT(text, HasSubstr("prepared graph:"));
  EXPECT_THAT(text, HasSubstr("aten::relu"));
  EXPECT_THAT(text, HasSubstr("out_variant"));
  EXPECT_THAT(text, HasSubstr("why: no registered kernel for aten::mv"));
  EXPECT_THAT(text, HasSubstr("3 nodes: 1 out variant, 1 native, 1 fallback"));
  const std::string dot = ToDot(**module);
  EXPECT_THAT(dot, HasSubstr("digraph prepared"));
  EXPECT_THAT(dot, HasSubstr("aten::mv\\nfallback"));
  EXPECT_THAT(dot, HasSubstr("fillcolor=palegreen"));
  EXPECT_THAT(dot, HasSubstr("node_0 -> node_1;"));
}

TEST(ExplainTest, FusedGroupsAndWhyTheirNeighboursAreNot) {
  auto module = StaticModule::FromIR(R"IR(
graph(%x : Tensor, %y : Tensor):
  %one : int = prim::Constant[value=1]()
  %two : int = prim::Constant[value=2]()
  %a : Tensor = aten::add(%x, %y, %one)
  %b : Tensor = aten::sigmoid(%a)
  %c : Tensor = aten::sub(%b, %y, %two)
  %d : Tensor = aten::tanh(%c)
  return (%d, %a))IR");
  ASSERT_TRUE(module.ok()) << module.status();
  const std::string text = Explain(**module);
  EXPECT_THAT(text, HasSubstr("static_runtime::fused_pointwise"));
  EXPECT_THAT(text, HasSubstr("fused: add, sigmoid (2 of 2 values used after)"));
  EXPECT_THAT(text, HasSubstr("not fused: its alpha is not the constant 1"));
}

}  // namespace
}  // namespace reports
}  // namespace static_runtime
