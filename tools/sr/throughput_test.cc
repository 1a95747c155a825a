#include "tools/sr/throughput.h"

#include "ATen/ATen.h"
#include "gtest/gtest.h"
#include "tools/sr/default_model.h"
#include "tools/sr/input_spec.h"

namespace static_runtime {
namespace sr {
namespace {

class ThroughputTest : public testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<torch::jit::Module> model = DefaultModel();
    ASSERT_TRUE(model.ok()) << model.status();
    absl::StatusOr<std::vector<c10::IValue>> inputs = ParseInputSpec(kDefaultInputSpec, 0);
    ASSERT_TRUE(inputs.ok()) << inputs.status();
    inputs_ = *std::move(inputs);
    absl::StatusOr<StaticModule::Ptr> module =
        StaticModule::FromModule(*model, /*is_frozen=*/false, Options(), inputs_);
    ASSERT_TRUE(module.ok()) << module.status();
    module_ = *std::move(module);
  }

  StaticModule::Ptr module_;
  std::vector<c10::IValue> inputs_;
};

// At a fixed rate every call of the schedule runs (late ones at once), so
// the count is the schedule's: call k is due at k / rate, before `seconds`.
TEST_F(ThroughputTest, PacedCallsFollowTheSchedule) {
  for (int threads : {1, 2}) {
    ThroughputConfig config;
    config.threads = threads;
    config.calls_per_second = 200;
    config.seconds = 0.1;
    config.warmup = 2;
    absl::StatusOr<ThroughputReport> report = RunThroughput(module_, inputs_, config);
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_EQ(report->calls, 20) << threads << " threads";
    EXPECT_EQ(report->threads, threads);
    EXPECT_GE(report->wall_seconds, 0.095);
    EXPECT_LE(report->latency.median_us, report->latency.p99_us);
  }
}

TEST_F(ThroughputTest, BackToBackReportsThroughputAndCpu) {
  ThroughputConfig config;
  config.seconds = 0.2;
  config.warmup = 2;
  absl::StatusOr<ThroughputReport> report = RunThroughput(module_, inputs_, config);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_GT(report->calls, 0);
  EXPECT_GT(report->cpu_seconds, 0);
  EXPECT_GT(report->call_seconds, 0);
  EXPECT_LE(report->call_seconds, report->wall_seconds * 1.01);
  EXPECT_NEAR(report->calls_per_second(), report->calls / report->wall_seconds, 1e-9);
  const std::string text = FormatThroughputReport(*report);
  EXPECT_NE(text.find("back to back"), std::string::npos) << text;
  EXPECT_NE(text.find("cpu per call"), std::string::npos) << text;
}

TEST_F(ThroughputTest, RefusesBadSettings) {
  for (ThroughputConfig config : {ThroughputConfig{0, 0, 1, 0}, ThroughputConfig{1, -1, 1, 0},
                                  ThroughputConfig{1, 0, 0, 0}, ThroughputConfig{1, 0, 1, -1}}) {
    absl::StatusOr<ThroughputReport> report = RunThroughput(module_, inputs_, config);
    ASSERT_FALSE(report.ok());
    EXPECT_EQ(report.status().code(), absl::StatusCode::kInvalidArgument);
  }
}

// A call that fails stops serving with the runtime's error.
TEST_F(ThroughputTest, ReportsTheFirstFailure) {
  ThroughputConfig config;
  config.seconds = 0.1;
  absl::StatusOr<ThroughputReport> report = RunThroughput(module_, {at::ones({2, 2})}, config);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), absl::StatusCode::kInvalidArgument) << report.status();
}

}  // namespace
}  // namespace sr
}  // namespace static_runtime
