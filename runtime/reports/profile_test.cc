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

constexpr const char* kReluThenProduct = R"(
def forward(self, x):
    y = torch.relu(x)
    z = torch.mm(y, y)
    return z
)";

// Allocations are counted per node on steady-state runs, with the reason:
// the planned intermediate (relu's output) allocates nothing, the graph
// output (the product) one tensor per run, and the fallback its results.
TEST(ProfileTest, AllocationsPerNodeWithTheirReason) {
  absl::StatusOr<torch::jit::Module> module = ModuleFromSource(kReluThenProduct);
  ASSERT_TRUE(module.ok()) << module.status();
  Options options;
  options.enable_fusion = false;
  options.group_output_allocations = false;
  auto report = Profile(*module, false, options, {at::randn({16, 16})}, 4);
  ASSERT_TRUE(report.ok()) << report.status();
  const NodeProfile* relu = nullptr;
  const NodeProfile* mm = nullptr;
  for (const NodeProfile& node : report->nodes) {
    if (node.kind == "aten::relu") relu = &node;
    if (node.kind == "aten::mm") mm = &node;
  }
  ASSERT_NE(relu, nullptr);
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(relu->allocations, 0);
  EXPECT_EQ(mm->allocations, 4);  // one output tensor per run, 4 runs
  EXPECT_EQ(mm->allocated_bytes, 4 * 16 * 16 * 4);
  EXPECT_THAT(mm->allocation_reason, HasSubstr("unplanned output"));
  EXPECT_THAT(relu->allocation_reason, HasSubstr("ATen-internal temporary"));
  EXPECT_DOUBLE_EQ(report->node_allocations_per_run, 1);
  EXPECT_GE(report->steady_run_allocations, 1);
  const std::string text = FormatProfile(*report);
  EXPECT_THAT(text, HasSubstr("allocations per steady-state run"));
  EXPECT_THAT(text, HasSubstr("unplanned output"));
}

// By default the graph output lives in the run's output slab: the product
// allocates nothing, and the runtime reuses the slab (the profile lets go
// of each run's outputs).
TEST(ProfileTest, TheOutputSlabIsTheRuntimesAllocation) {
  absl::StatusOr<torch::jit::Module> module = ModuleFromSource(kReluThenProduct);
  ASSERT_TRUE(module.ok()) << module.status();
  Options options;
  options.enable_fusion = false;
  auto report = Profile(*module, false, options, {at::randn({16, 16})}, 4);
  ASSERT_TRUE(report.ok()) << report.status();
  for (const NodeProfile& node : report->nodes) EXPECT_EQ(node.allocations, 0) << node.kind;
  EXPECT_EQ(report->memory.output_slab_tensors, 1u);
  EXPECT_EQ(report->memory.output_slab_bytes, 16u * 16 * 4);
  EXPECT_DOUBLE_EQ(report->node_allocations_per_run, 0);
  EXPECT_LT(report->steady_run_allocations, 1);
  EXPECT_THAT(FormatProfile(*report), HasSubstr("an output slab (1024 B) for the 1 tensors"));
}

// The product's operations per run, and its GFLOP/s against the machine's.
TEST(ProfileTest, MatrixProductsReportTheirGflops) {
  absl::StatusOr<torch::jit::Module> module = ModuleFromSource(kReluThenProduct);
  ASSERT_TRUE(module.ok()) << module.status();
  auto report = Profile(*module, false, Options(), {at::randn({16, 16})}, 3);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_DOUBLE_EQ(report->flops_per_run, 2.0 * 16 * 16 * 16);
  // A product node is all product: its whole call is the products' time.
  EXPECT_DOUBLE_EQ(report->product_flops_per_run, report->flops_per_run);
  double product_us = 0;
  for (const NodeKindProfile& entry : report->kinds) {
    if (entry.flops > 0) {
      EXPECT_DOUBLE_EQ(entry.product_us, entry.total_us) << entry.kind;
      product_us += entry.product_us / 3;
    }
  }
  EXPECT_DOUBLE_EQ(report->product_us_per_run, product_us);
  EXPECT_GT(report->peak_gflops, 0);
  const std::string text = FormatProfile(*report);
  EXPECT_THAT(text, HasSubstr("matrix products and convolutions: 0.0000 GFLOP per run"));
  EXPECT_THAT(text, ::testing::ContainsRegex("aten::mm +[0-9.]+ GFLOP/s"));
}

// An encoder layer times its products alone: they are the operations its
// flops count, in part of its time.
TEST(ProfileTest, EncoderLayersTimeTheirProductsAlone) {
  absl::StatusOr<torch::jit::Module> module = ModuleFromSource(
      R"(
def forward(self, x, padding: Tensor):
    h = torch._transformer_encoder_layer_fwd(
        x, 16, 2, self.w_qkv, self.b_qkv, self.w_o, self.b_o, False, False, 1e-5,
        self.ln1_w, self.ln1_b, self.ln2_w, self.ln2_b, self.w_ff1, self.b_ff1, self.w_ff2,
        self.b_o, None, None)
    return torch._transformer_encoder_layer_fwd(
        h, 16, 2, self.w_qkv, self.b_qkv, self.w_o, self.b_o, False, True, 1e-5,
        self.ln1_w, self.ln1_b, self.ln2_w, self.ln2_b, self.w_ff1, self.b_ff1, self.w_ff2,
        self.b_o, padding, 1)
)",
      {{"w_qkv", at::randn({48, 16})},
       {"b_qkv", at::randn({48})},
       {"w_o", at::randn({16, 16})},
       {"b_o", at::randn({16})},
       {"ln1_w", at::randn({16})},
       {"ln1_b", at::randn({16})},
       {"w_ff1", at::randn({32, 16})},
       {"b_ff1", at::randn({32})},
       {"w_ff2", at::randn({16, 32})},
       {"ln2_w", at::randn({16})},
       {"ln2_b", at::randn({16})}});
  ASSERT_TRUE(module.ok()) << module.status();
  const at::Tensor padding = at::arange(12).unsqueeze(0).repeat({3, 1}) >= 9;
  auto report = Profile(*module, false, Options(), {at::randn({3, 12, 16}), padding}, 4);
  ASSERT_TRUE(report.ok()) << report.status();
  const NodeKindProfile* layer = nullptr;
  for (const NodeKindProfile& entry : report->kinds) {
    if (entry.kind == "static_runtime::transformer_encoder_layer") layer = &entry;
  }
  ASSERT_NE(layer, nullptr) << FormatProfile(*report);
  EXPECT_GT(layer->flops, 0);
  EXPECT_DOUBLE_EQ(layer->product_flops, layer->flops);
  EXPECT_GT(layer->product_us, 0);
  EXPECT_LT(layer->product_us, layer->total_us);
  EXPECT_DOUBLE_EQ(report->product_flops_per_run, report->flops_per_run);
  const std::string text = FormatProfile(*report);
  EXPECT_THAT(text, HasSubstr("the products alone: "));
  EXPECT_THAT(text, HasSubstr("at the limit these products alone would take "));
}

TEST(ProfileTest, AllocationReasonByKernelKind) {
  absl::StatusOr<torch::jit::Module> module = ModuleFromSource(R"(
def forward(self, x):
    return torch.relu(x)
)");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<StaticModule::Ptr> prepared = StaticModule::FromModule(*module, false);
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  std::vector<NodeDescription> nodes = (*prepared)->DescribeNodes();
  ASSERT_FALSE(nodes.empty());
  NodeDescription node = nodes.back();
  node.kind = NodeKind::kFallback;
  EXPECT_THAT(AllocationReason(node), HasSubstr("fallback"));
  node.kind = NodeKind::kNative;
  EXPECT_THAT(AllocationReason(node), HasSubstr("native result"));
}

}  // namespace
}  // namespace reports
}  // namespace static_runtime
