// aten::gelu's kernel against ATen: a tensor channels-last by the runtime's
// choice gets the values of the contiguous tensor the JIT holds; any other
// input gets ATen's op on the input as it is.
#include <memory>
#include <string>
#include <unordered_map>

#include "ATen/ATen.h"
#include "gtest/gtest.h"
#include "ir/operators/operators.h"
#include "ops/core/out_variant_test_support.h"
#include "ops/core/registry.h"
#include "ops/kernels.h"
#include "torch/csrc/jit/ir/irparser.h"

namespace static_runtime {
namespace {

struct GeluGraph {
  std::shared_ptr<torch::jit::Graph> graph = std::make_shared<torch::jit::Graph>();
  Kernel kernel;
  ErrorBound error_bound;
};

// `ir` with a node %g = aten::gelu(...), bound to its out-variant kernel.
GeluGraph Bind(const std::string& ir) {
  ops::EnsureOperatorsRegistered();
  GeluGraph result;
  std::unordered_map<std::string, torch::jit::Value*> values;
  torch::jit::parseIR(ir, result.graph.get(), values);
  auto selected = GlobalKernels().Find(values.at("g")->node(), true);
  EXPECT_TRUE(selected.has_value() && selected->kind == NodeKind::kOutVariant);
  if (selected) {
    result.kernel = selected->kernel;
    result.error_bound = selected->error_bound;
  }
  return result;
}

// Runs the kernel three times on `input` (a fresh output, then reused ones)
// and returns the last output.
at::Tensor RunThrice(const Kernel& kernel, const at::Tensor& input) {
  testing::Slots slots(1);
  for (int call = 0; call < 3; ++call) {
    EXPECT_EQ(slots.Run(kernel, {input, std::string("none")}), "");
  }
  return slots.Output(0).toTensor();
}

at::Tensor ChannelsLastInput() {
  at::manual_seed(7);
  return (at::randn({2, 32, 17, 13}) * 3).contiguous(at::MemoryFormat::ChannelsLast);
}

TEST(Gelu, AfterAConvolutionComputesAsOnTheJitsContiguousTensor) {
  GeluGraph bound = Bind(R"IR(
graph(%x : Tensor, %w : Tensor, %approximate : str):
  %c : Tensor = static_runtime::conv2d_fused(%x, %w)
  %g : Tensor = aten::gelu(%c, %approximate)
  %d : Tensor = static_runtime::conv2d_fused(%g, %w)
  return (%d)
)IR");
  const at::Tensor input = ChannelsLastInput();
  const at::Tensor actual = RunThrice(bound.kernel, input);
  EXPECT_TRUE(actual.is_contiguous(at::MemoryFormat::ChannelsLast));
  EXPECT_TRUE(at::equal(actual, at::gelu(input.contiguous(), "none")));
}

TEST(Gelu, OtherInputsGetAtensOpAsTheyAre) {
  GeluGraph bound = Bind(R"IR(
graph(%x : Tensor, %approximate : str):
  %g : Tensor = aten::gelu(%x, %approximate)
  return (%g)
)IR");
  const at::Tensor input = ChannelsLastInput();
  EXPECT_TRUE(at::equal(RunThrice(bound.kernel, input), at::gelu(input, "none")));
  const at::Tensor contiguous = input.contiguous();
  EXPECT_TRUE(at::equal(RunThrice(bound.kernel, contiguous), at::gelu(contiguous, "none")));
}

// The declared bound holds for both of ATen's roundings (oneDNN's on a
// contiguous tensor, ATen's own kernel on a channels-last one), over values
// from -12 to 12, normal ones and tiny ones.
TEST(Gelu, BothOfAtensRoundingsAreWithinTheDeclaredBound) {
  GeluGraph bound = Bind(R"IR(
graph(%x : Tensor, %approximate : str):
  %g : Tensor = aten::gelu(%x, %approximate)
  return (%g)
)IR");
  ASSERT_TRUE(bound.error_bound);
  at::manual_seed(3);
  const at::Tensor x =
      at::cat({at::linspace(-12, 12, 40000), at::randn({40000}) * 3, at::randn({10000}) * 1e-3})
          .reshape({1, 100, 30, 30});
  const at::Tensor exact = at::gelu(x.to(at::kDouble), "none");
  for (const at::Tensor& input : {x, x.contiguous(at::MemoryFormat::ChannelsLast)}) {
    const at::Tensor error = (at::gelu(input, "none").to(at::kDouble) - exact).abs();
    const at::Tensor limit = bound.error_bound({input, std::string("none")}, exact);
    EXPECT_TRUE(error.le(limit).all().item<bool>())
        << "largest error / bound: " << (error / limit).max().item<double>();
  }
}

}  // namespace
}  // namespace static_runtime
