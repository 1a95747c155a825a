// Prepares a TorchScript model with static_runtime from another workspace and
// checks that the prepared graph computes what the original module computes.
#include "ATen/ATen.h"
#include "gtest/gtest.h"
#include "passes/load.h"
#include "passes/prepare.h"
#include "torch/csrc/jit/runtime/graph_executor.h"

TEST(ConsumerTest, PreparedGraphMatchesTheModule) {
  auto module = static_runtime::ModuleFromSource(R"(
def forward(self, x):
    a, b = x.chunk(2, 1)
    return torch.cat([a.relu(), b.sigmoid()], 1).transpose(0, 1) * self.scale
)",
                                                 {{"scale", at::full({4, 1}, 3.0)}});
  ASSERT_TRUE(module.ok()) << module.status();
  auto prepared = static_runtime::PrepareModule(*module, /*is_frozen=*/false,
                                                static_runtime::Options());
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  EXPECT_NE(prepared->graph->toString().find("static_runtime::"), std::string::npos);

  at::Tensor x = at::randn({4, 4});
  torch::jit::GraphExecutor executor(prepared->graph, "prepared");
  torch::jit::Stack stack{x};
  executor.run(stack);
  at::Tensor expected = module->forward({x}).toTensor();
  EXPECT_TRUE(at::allclose(stack.at(0).toTensor(), expected));
}
