#include "tools/sr/plan_svg.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/static_runtime.h"
#include "tools/sr/default_model.h"
#include "tools/sr/input_spec.h"

namespace static_runtime {
namespace sr {
namespace {

size_t Count(const std::string& text, const std::string& needle) {
  size_t count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

TEST(PlanSvgTest, OneRectanglePerManagedTensorAndTheLowerBound) {
  auto module = DefaultModel();
  ASSERT_TRUE(module.ok());
  auto static_module = StaticModule::FromModule(*module, false);
  ASSERT_TRUE(static_module.ok()) << static_module.status();
  auto inputs = ParseInputSpec(kDefaultInputSpec, 0);
  ASSERT_TRUE(inputs.ok());
  StaticRuntime runtime(*static_module);
  ASSERT_TRUE(runtime.Run(*inputs).ok());
  const MemoryPlanDescription plan = runtime.DescribeMemoryPlan();
  ASSERT_FALSE(plan.tensors.empty());
  EXPECT_EQ(plan.tensors.size(), (*static_module)->planned_tensors());
  const std::string svg = PlanSvg(plan);
  EXPECT_THAT(svg, testing::StartsWith("<svg"));
  size_t nonempty = 0;
  for (const MemoryPlanDescription::Tensor& tensor : plan.tensors) nonempty += tensor.bytes > 0;
  EXPECT_GT(nonempty, 0u);
  EXPECT_EQ(Count(svg, "<g><title>"), nonempty);
  EXPECT_THAT(svg, testing::HasSubstr("lower bound"));
  EXPECT_THAT(svg, testing::HasSubstr("linear"));
}

}  // namespace
}  // namespace sr
}  // namespace static_runtime
