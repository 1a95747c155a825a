#include "ops/core/channels_last.h"

#include <memory>
#include <string>
#include <unordered_map>

#include "gtest/gtest.h"
#include "torch/csrc/jit/ir/irparser.h"

namespace static_runtime {
namespace {

// The graph of `ir`, and its values by name.
struct Parsed {
  std::shared_ptr<torch::jit::Graph> graph = std::make_shared<torch::jit::Graph>();
  std::unordered_map<std::string, torch::jit::Value*> values;
};
Parsed Parse(const std::string& ir) {
  Parsed parsed;
  torch::jit::parseIR(ir, parsed.graph.get(), parsed.values);
  return parsed;
}

// Whether the convolution's result %c of `ir` may be produced channels-last.
bool ConvResultMayBeChannelsLast(const std::string& ir) {
  Parsed parsed = Parse(ir);
  return MayBeChannelsLast(parsed.values.at("c"));
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

// The copy variants make a contiguous result from any input layout: a
// ConvNeXt block's depthwise convolution, permuted to NHWC for its layer
// norm, may be channels-last (the copy is then one memcpy); a permute view
// may not.
TEST(ChannelsLast, CopyVariantsTakeAnyLayout) {
  EXPECT_TRUE(ConvResultMayBeChannelsLast(R"IR(
graph(%x : Tensor, %w : Tensor, %dims : int[]):
  %c : Tensor = static_runtime::conv2d_fused(%x, %w)
  %p : Tensor = static_runtime::copy_permute(%c, %dims)
  return (%p)
)IR"));
  EXPECT_FALSE(ConvResultMayBeChannelsLast(R"IR(
graph(%x : Tensor, %w : Tensor, %dims : int[]):
  %c : Tensor = static_runtime::conv2d_fused(%x, %w)
  %p : Tensor = aten::permute(%c, %dims)
  return (%p)
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

// DenseNet's features: a list that is only appended to and concatenated
// passes the layout on to the concatenation; a list whose element is read
// out, or that is returned, does not.
TEST(ChannelsLast, TensorListsPassTheLayoutToTheirConcatenation) {
  EXPECT_TRUE(ConvResultMayBeChannelsLast(R"IR(
graph(%x : Tensor, %w : Tensor, %y : Tensor):
  %dim : int = prim::Constant[value=1]()
  %c : Tensor = static_runtime::conv2d_fused(%x, %w)
  %list : Tensor[] = prim::ListConstruct(%y)
  %ignored : Tensor[] = aten::append(%list, %c)
  %n : int = aten::len(%list)
  %cat : Tensor = aten::cat(%list, %dim)
  %r : Tensor = aten::relu(%cat)
  %d : Tensor = static_runtime::conv2d_fused(%r, %w)
  %next : Tensor[] = aten::append(%list, %d)
  %cat2 : Tensor = aten::cat(%list, %dim)
  %e : Tensor = static_runtime::conv2d_fused(%cat2, %w)
  return (%e)
)IR"));
  EXPECT_FALSE(ConvResultMayBeChannelsLast(R"IR(
graph(%x : Tensor, %w : Tensor):
  %dim : int = prim::Constant[value=1]()
  %c : Tensor = static_runtime::conv2d_fused(%x, %w)
  %list : Tensor[] = prim::ListConstruct(%c)
  %cat : Tensor = aten::cat(%list, %dim)
  return (%cat)
)IR"));
  EXPECT_FALSE(ConvResultMayBeChannelsLast(R"IR(
graph(%x : Tensor, %w : Tensor):
  %zero : int = prim::Constant[value=0]()
  %c : Tensor = static_runtime::conv2d_fused(%x, %w)
  %list : Tensor[] = prim::ListConstruct(%x)
  %ignored : Tensor[] = aten::append(%list, %c)
  %first : Tensor = aten::__getitem__(%list, %zero)
  %d : Tensor = static_runtime::conv2d_fused(%first, %w)
  return (%d)
)IR"));
  EXPECT_FALSE(ConvResultMayBeChannelsLast(R"IR(
graph(%x : Tensor, %w : Tensor):
  %c : Tensor = static_runtime::conv2d_fused(%x, %w)
  %list : Tensor[] = prim::ListConstruct(%c)
  return (%list)
)IR"));
}

// DenseNet's layer once its batch norm and relu are one node
// (passes/fuse_batch_norm_relu.h): the concatenation of convolutions'
// results, then batch_norm_relu, into a convolution.
TEST(ChannelsLast, BatchNormReluFollowsItsInputsLayout) {
  EXPECT_TRUE(ConvResultMayBeChannelsLast(R"IR(
graph(%x : Tensor, %w : Tensor, %y : Tensor, %g : Tensor):
  %dim : int = prim::Constant[value=1]()
  %c : Tensor = static_runtime::conv2d_fused(%x, %w)
  %list : Tensor[] = prim::ListConstruct(%y, %c)
  %cat : Tensor = aten::cat(%list, %dim)
  %r : Tensor = static_runtime::batch_norm_relu(%cat, %g)
  %d : Tensor = static_runtime::conv2d_fused(%r, %w)
  return (%d)
)IR"));
  EXPECT_FALSE(ConvResultMayBeChannelsLast(R"IR(
graph(%x : Tensor, %w : Tensor, %g : Tensor):
  %c : Tensor = static_runtime::conv2d_fused(%x, %w)
  %r : Tensor = static_runtime::batch_norm_relu(%c, %g)
  return (%r)
)IR"));
}

// Whether %v of `ir` is channels-last only by the runtime's choice.
bool ByChoice(const std::string& ir) {
  Parsed parsed = Parse(ir);
  return ChannelsLastByChoice(parsed.values.at("v"));
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
  // the JIT too), a sum with one, or a list.
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
  // A concatenation of a list, whatever its tensors are.
  EXPECT_FALSE(ByChoice(R"IR(
graph(%x : Tensor, %w : Tensor, %one : int):
  %c : Tensor = static_runtime::conv2d_fused(%x, %w)
  %l : Tensor[] = prim::ListConstruct(%c, %x)
  %v : Tensor = aten::cat(%l, %one)
  return (%v)
)IR"));
}

}  // namespace
}  // namespace static_runtime
