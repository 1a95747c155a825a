// Runs a TorchScript model with static_runtime from another workspace and
// checks that it computes what the module computes, alone and from a pool.
#include "ATen/ATen.h"
#include "gtest/gtest.h"
#include "load/load.h"
#include "runtime/pool.h"
#include "runtime/static_runtime.h"

TEST(ConsumerTest, StaticRuntimeMatchesTheModule) {
  auto module = static_runtime::ModuleFromSource(R"(
def forward(self, x):
    a, b = x.chunk(2, 1)
    return torch.cat([a.relu(), b.sigmoid()], 1).transpose(0, 1) * self.scale
)",
                                                 {{"scale", at::full({4, 1}, 3.0)}});
  ASSERT_TRUE(module.ok()) << module.status();
  auto static_module = static_runtime::StaticModule::FromModule(*module, /*is_frozen=*/false);
  ASSERT_TRUE(static_module.ok()) << static_module.status();

  static_runtime::StaticRuntime runtime(*static_module);
  static_runtime::RuntimePool pool(*static_module, /*max_runtimes=*/2);
  for (int i = 0; i < 3; ++i) {
    at::Tensor x = at::randn({4, 4});
    at::Tensor expected = module->forward({x}).toTensor();
    auto result = runtime.Run({x});
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_TRUE(at::allclose(result->toTensor(), expected));
    auto pooled = pool.Run({x});
    ASSERT_TRUE(pooled.ok()) << pooled.status();
    EXPECT_TRUE(at::allclose(pooled->toTensor(), expected));
  }
}
