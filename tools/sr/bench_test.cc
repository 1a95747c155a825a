#include "tools/sr/bench.h"

#include <mutex>
#include <thread>

#include "ATen/ATen.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "load/load.h"
#include "tools/sr/default_model.h"
#include "tools/sr/input_spec.h"
#include "tools/sr/inputs_file.h"

namespace static_runtime {
namespace sr {
namespace {

using testing::HasSubstr;
using testing::Not;

TEST(BenchTest, DefaultModelReportIsConsistent) {
  absl::StatusOr<torch::jit::Module> module = DefaultModel();
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::vector<c10::IValue>> inputs = ParseInputSpec(kDefaultInputSpec, 0);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  BenchConfig config;
  config.iters = 20;
  config.warmup = 2;
  config.threads = 2;
  absl::StatusOr<BenchReport> report = RunBench(*module, *inputs, config);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_LT(report->max_abs_diff, 1e-4);
  EXPECT_GT(report->static_runtime.median_us, 0);
  EXPECT_LE(report->static_runtime.median_us, report->static_runtime.p90_us);
  EXPECT_LE(report->static_runtime.p90_us, report->static_runtime.p99_us);
  ASSERT_TRUE(report->jit.has_value());
  EXPECT_GT(report->jit->throughput_per_s, 0);
  EXPECT_GT(report->kernels.out_variant, 0u);
  EXPECT_GT(report->memory.intermediates.managed_tensors, 0u);

  const std::string json = ReportJson(*report, "default \"ads\"");
  for (const char* key :
       {"\"model\": \"default \\\"ads\\\"\"", "\"static_runtime\": {\"median_us\"", "\"jit\": {",
        "\"p99_us\"", "\"throughput_per_s\"", "\"ratio\"", "\"max_abs_diff\"", "\"nodes\"",
        "\"out_variant\"", "\"memory\"", "\"lower_bound_bytes\"", "\"output_buffer_bytes\""}) {
    EXPECT_THAT(json, HasSubstr(key));
  }
  EXPECT_THAT(FormatReport(*report), HasSubstr("ratio (static / jit, median)"));
}

// With --turn=N every side makes N calls in a row: the timed calls finish
// a turn at a time (the first turn holds the warm-up calls too).
TEST(BenchTest, SidesTakeTurnsOfTheGivenCalls) {
  absl::StatusOr<torch::jit::Module> module = DefaultModel();
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::vector<c10::IValue>> inputs = ParseInputSpec(kDefaultInputSpec, 0);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  BenchConfig config;
  config.iters = 10;
  config.warmup = 2;
  config.turn = 4;
  std::vector<double> progress;
  config.progress = [&](double fraction) { progress.push_back(fraction); };
  absl::StatusOr<BenchReport> report = RunBench(*module, *inputs, config);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(progress, testing::ElementsAre(0.2, 0.6, 1.0, 1.0));
  ASSERT_TRUE(report->jit.has_value());
  EXPECT_GT(report->jit->median_us, 0);
  EXPECT_THAT(ReportJson(*report, "m"), HasSubstr("\"turn\": 4"));
  EXPECT_THAT(FormatReport(*report), HasSubstr("in turns of 4 calls"));

  config.turn = 0;
  report = RunBench(*module, *inputs, config);
  ASSERT_FALSE(report.ok());
  EXPECT_THAT(std::string(report.status().message()), HasSubstr("--turn"));
}

// With one caller the sides run on the calling thread (one OpenMP pool in
// the process); progress is reported from the thread that runs them.
TEST(BenchTest, OneCallerRunsOnTheCallingThread) {
  absl::StatusOr<torch::jit::Module> module = DefaultModel();
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::vector<c10::IValue>> inputs = ParseInputSpec(kDefaultInputSpec, 0);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  BenchConfig config;
  config.iters = 4;
  config.warmup = 1;
  std::mutex mutex;  // two callers report progress concurrently
  std::vector<std::thread::id> reporters;
  config.progress = [&](double) {
    std::lock_guard<std::mutex> lock(mutex);
    reporters.push_back(std::this_thread::get_id());
  };
  absl::StatusOr<BenchReport> report = RunBench(*module, *inputs, config);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_FALSE(reporters.empty());
  EXPECT_THAT(reporters, testing::Each(std::this_thread::get_id()));

  config.threads = 2;
  reporters.clear();
  report = RunBench(*module, *inputs, config);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(reporters, testing::Contains(testing::Ne(std::this_thread::get_id())));
}

TEST(BenchTest, TimesTheRuntimeWithOtherOptionsBesideIt) {
  absl::StatusOr<torch::jit::Module> module = DefaultModel();
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::vector<c10::IValue>> inputs = ParseInputSpec(kDefaultInputSpec, 0);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  BenchConfig config;
  config.iters = 5;
  config.warmup = 1;
  config.other_options = Options();
  config.other_options->enable_out_variant = false;
  config.other_options->optimize_memory = false;
  config.other_name = "enable_out_variant=false,optimize_memory=false";
  absl::StatusOr<BenchReport> report = RunBench(*module, *inputs, config);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_TRUE(report->other_static.has_value());
  EXPECT_GT(report->other_static->median_us, 0);
  // Without out variants every run allocates what the planned runtime does not.
  EXPECT_GT(report->other_static->allocations_per_run, report->static_runtime.allocations_per_run);
  EXPECT_DOUBLE_EQ(report->ratio_to_other_static,
                   report->static_runtime.median_us / report->other_static->median_us);
  EXPECT_THAT(ReportJson(*report, "m"), HasSubstr("\"ratio_to_other_static\""));

  // Without timing the JIT: the two sides only, and no JIT entries.
  config.time_jit = false;
  report = RunBench(*module, *inputs, config);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_FALSE(report->jit.has_value());
  ASSERT_TRUE(report->other_static.has_value());
  EXPECT_GT(report->other_static->allocations_per_run, report->static_runtime.allocations_per_run);
  EXPECT_THAT(ReportJson(*report, "m"), Not(HasSubstr("\"jit\"")));
  EXPECT_THAT(FormatReport(*report), Not(HasSubstr("ratio (static / jit")));
}

// testdata/decoder_layer.pt, as Python saved it:
//   layer = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=True).eval()
//   torch.jit.save(torch.jit.freeze(torch.jit.script(layer)), "decoder_layer.pt")
//   torch.save((torch.randn(1, 3, 8), torch.randn(1, 2, 8)), "decoder_layer_inputs.pt")
// PyTorch SR fails its run, and its cleanup then throws while the exception
// unwinds: std::terminate would end the benchmark's process.
TEST(BenchTest, APyTorchSrThatEndsTheProcessIsReported) {
  absl::StatusOr<torch::jit::Module> module =
      LoadModuleFromFile("tools/sr/testdata/decoder_layer.pt");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::vector<c10::IValue>> inputs =
      LoadInputsFile("tools/sr/testdata/decoder_layer_inputs.pt");
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  BenchConfig config;
  config.iters = 3;
  config.warmup = 1;
  config.against_pytorch_sr = true;
  absl::StatusOr<BenchReport> report = RunBench(*module, *inputs, config);
  ASSERT_FALSE(report.ok());
  EXPECT_THAT(std::string(report.status().message()),
              HasSubstr("PyTorch's Static Runtime cannot run the model on these inputs: it "
                        "ends the process (signal 6"));
  // Without PyTorch SR the model is timed.
  config.against_pytorch_sr = false;
  const absl::StatusOr<BenchReport> ours = RunBench(*module, *inputs, config);
  EXPECT_TRUE(ours.ok()) << ours.status();
}

// The JIT runs a forked model on LibTorch's inter-op pool; PyTorch SR's
// first call, in a child process, must not inherit that pool without its
// threads (its forks would wait forever: after 300 s, an error).
TEST(BenchTest, AForkedModelAgainstPyTorchSr) {
  absl::StatusOr<torch::jit::Module> module = LoadModuleFromFile("runtime/testdata/fork_towers.pt");
  ASSERT_TRUE(module.ok()) << module.status();
  BenchConfig config;
  config.iters = 3;
  config.warmup = 1;
  config.against_pytorch_sr = true;
  absl::StatusOr<BenchReport> report = RunBench(*module, {at::randn({3, 8}), true}, config);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->pytorch_sr.has_value());
}

// At two intra-op threads the parent has started OpenMP's workers before
// PyTorch SR's first call in a forked child, which has none of them: that
// call must not wait for them (after 300 s, an error).
TEST(BenchTest, TwoIntraOpThreadsAgainstPyTorchSr) {
  torch::jit::Module module("m");
  module.define(R"(
    def forward(self, x):
        return x * 2.0 + 1.0
  )");
  BenchConfig config;
  config.iters = 3;
  config.warmup = 1;
  config.intra_op_threads = 2;
  config.against_pytorch_sr = true;
  // Large enough for ATen's elementwise kernels to split over the threads.
  absl::StatusOr<BenchReport> report = RunBench(module, {at::randn({1 << 20})}, config);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->pytorch_sr.has_value());
}

TEST(BenchTest, BadConfigAndBadInputs) {
  absl::StatusOr<torch::jit::Module> module = DefaultModel();
  ASSERT_TRUE(module.ok());
  BenchConfig config;
  config.iters = 0;
  EXPECT_EQ(RunBench(*module, {}, config).status().code(), absl::StatusCode::kInvalidArgument);
  config.iters = 2;
  auto wrong = RunBench(*module, {at::ones({2})}, config);
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(std::string(wrong.status().message()), HasSubstr("argument"));
}

}  // namespace
}  // namespace sr
}  // namespace static_runtime
