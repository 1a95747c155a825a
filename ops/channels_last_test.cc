#include "ops/channels_last.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "torch/csrc/jit/ir/irparser.h"

namespace static_runtime {
namespace {

// Whether the first convolution's result of `ir` (a graph whose node %c is
// that result) may be produced channels-last.
bool ConvResultMayBeChannelsLast(const std::string& ir) {
  auto graph = std::make_shared<torch::jit::Graph>();
  std::unordered_map<std::string, torch::jit::Value*> values;
  torch::jit::parseIR(ir, graph.get(), values);
  return MayBeChannelsLast(values.at("c"));
}

TEST(ChannelsLast, LayoutFreeChainsMayBeChannelsLast) {
  EXPECT_TRUE(ConvResultMayBeChannelsLast(R"IR(
graph(%x : Tensor, %w : Tensor):
  %c : Tensor = static_runtime::conv2d_fused(%x, %w)
  %r : Tensor = aten::relu(%c)
  %s : Tensor = aten::sigmoid(%r)
  %d : Tensor = static_runtime::conv2d_fused(%s, %w)
  return (%d)
)IR"));
}

TEST(ChannelsLast, GraphOutputsAndViewsKeepTheContiguousLayout) {
  EXPECT_FALSE(ConvResultMayBeChannelsLast(R"IR(
graph(%x : Tensor, %w : Tensor):
  %c : Tensor = static_runtime::conv2d_fused(%x, %w)
  %r : Tensor = aten::relu(%c)
  return (%r)
)IR"));
  EXPECT_FALSE(ConvResultMayBeChannelsLast(R"IR(
graph(%x : Tensor, %w : Tensor, %shape : int[]):
  %c : Tensor = static_runtime::conv2d_fused(%x, %w)
  %v : Tensor = aten::view(%c, %shape)
  %d : Tensor = static_runtime::conv2d_fused(%v, %w)
  return (%d)
)IR"));
}

// Whether %v of `ir` is channels-last only by the runtime's choice.
bool ByChoice(const std::string& ir) {
  auto graph = std::make_shared<torch::jit::Graph>();
  std::unordered_map<std::string, torch::jit::Value*> values;
  torch::jit::parseIR(ir, graph.get(), values);
  return ChannelsLastByChoice(values.at("v"));
}

TEST(ChannelsLast, ByChoiceFromAConvolutionThroughLayoutFollowingOps) {
  EXPECT_TRUE(ByChoice(R"IR(
graph(%x : Tensor, %w : Tensor):
  %c : Tensor = static_runtime::conv2d_fused(%x, %w)
  %r : Tensor = aten::relu(%c)
  %k : Tensor = prim::Constant[value=0.5]()
  %v : Tensor = aten::mul(%r, %k)
  return (%v)
)IR"));
  EXPECT_TRUE(ByChoice(R"IR(
graph(%x : Tensor, %w : Tensor, %one : int):
  %c : Tensor = static_runtime::conv2d_fused(%x, %w)
  %d : Tensor = static_runtime::conv2d_fused(%c, %w)
  %v : Tensor = aten::add(%c, %d, %one)
  return (%v)
)IR"));
}

TEST(ChannelsLast, NotByChoiceWhenAnInputComesFromElsewhere) {
  // A graph input (the caller's layout), a permuted view (channels-last in
  // the JIT too), or a sum with one.
  EXPECT_FALSE(ByChoice(R"IR(
graph(%x : Tensor):
  %v : Tensor = aten::relu(%x)
  return (%v)
)IR"));
  EXPECT_FALSE(ByChoice(R"IR(
graph(%x : Tensor, %order : int[]):
  %p : Tensor = aten::permute(%x, %order)
  %v : Tensor = aten::sigmoid(%p)
  return (%v)
)IR"));
  EXPECT_FALSE(ByChoice(R"IR(
graph(%x : Tensor, %w : Tensor, %one : int):
  %c : Tensor = static_runtime::conv2d_fused(%x, %w)
  %v : Tensor = aten::add(%c, %x, %one)
  return (%v)
)IR"));
}

}  // namespace
}  // namespace static_runtime
