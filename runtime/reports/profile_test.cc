#include "runtime/reports/profile.h"

#include "ATen/ATen.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "load/load.h"

namespace static_runtime {
namespace reports {
namespace {

using ::testing::HasSubstr;

TEST(ProfileTest, MultiLayerPerceptron) {
  absl::StatusOr<torch::jit::Module> module = ModuleFromSource(
      R"(
def forward(self, x):
    h = torch.relu(torch.linear(x, self.w1, self.b1))
    return torch.sigmoid(torch.linear(h, self.w2, self.b2))
)",
      {{"w1", at::randn({32, 16})},
       {"b1", at::randn({32})},
       {"w2", at::randn({4, 32})},
       {"b2", at::randn({4})}});
  ASSERT_TRUE(module.ok()) << module.status();
  auto report = Profile(*module, false, Options(), {at::randn({8, 16})}, 5);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_FALSE(report->kinds.empty());
  for (size_t i = 1; i < report->kinds.size(); ++i) {
    EXPECT_GE(report->kinds[i - 1].total_us, report->kinds[i].total_us);
  }
  double calls = 0;
  for (const auto& entry : report->kinds) calls += entry.calls;
  EXPECT_DOUBLE_EQ(calls / 5, report->calls_per_run);
  EXPECT_GT(report->run_us, 0);
  EXPECT_GT(report->allocate_us, 0);
  // The overhead comes from timed chains, not from clamping a difference.
  EXPECT_GT(report->overhead.slope_ns, 0);
  EXPECT_GT(report->overhead.kernel_ns, 0);
  EXPECT_DOUBLE_EQ(report->overhead.per_node_ns,
                   report->overhead.slope_ns - report->overhead.kernel_ns);
  EXPECT_THAT(report->trace_json, HasSubstr("\"traceEvents\""));
  EXPECT_THAT(report->trace_json, HasSubstr("\"ph\": \"X\""));
  EXPECT_THAT(report->trace_json, HasSubstr("static_runtime::linear_fused"));
  const std::string text = FormatProfile(*report);
  EXPECT_THAT(text, HasSubstr("runtime overhead per node"));
  EXPECT_THAT(text, HasSubstr("out_variant"));
}

TEST(ProfileTest, FusedGroupsHaveALineEach) {
  absl::StatusOr<torch::jit::Module> module = ModuleFromSource(R"(
def forward(self, x, y):
    a = torch.relu(x + y)
    b = torch.mm(a, y)
    return torch.tanh(b) * 2.0
)");
  ASSERT_TRUE(module.ok()) << module.status();
  const std::vector<c10::IValue> inputs = {at::randn({4, 4}), at::randn({4, 4})};
  auto report = Profile(*module, false, Options(), inputs, 3);
  ASSERT_TRUE(report.ok()) << report.status();
  std::vector<std::string> kinds;
  for (const auto& entry : report->kinds) kinds.push_back(entry.kind);
  EXPECT_THAT(kinds, ::testing::IsSupersetOf({"fused group at node 0: add, relu",
                                              "fused group at node 2: tanh, mul", "aten::mm"}));
}

}  // namespace
}  // namespace reports
}  // namespace static_runtime
