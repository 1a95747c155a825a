// Long runs keep memory flat (tagged manual: minutes, not for CI):
// 1,000,000 runs of a small model and 10,000 runs of a convolutional model
// with alternating input shapes, each on one runtime. After a warm-up, the
// process's resident memory may not grow by more than a few MiB (allocator
// noise), and the plan does not grow either (the arena after the last run
// equals the arena after the warm-up). Prints the numbers.
//
//   bazel test //runtime:long_run_test --test_output=all
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <vector>

#include "ATen/ATen.h"
#include "gtest/gtest.h"
#include "load/load.h"
#include "runtime/static_runtime.h"

namespace static_runtime {
namespace {

// Resident set size in MiB, from /proc/self/statm.
double ResidentMiB() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return static_cast<double>(resident) * sysconf(_SC_PAGESIZE) / (1 << 20);
}

// Runs `inputs` in turn `runs` times on one runtime of `source`; checks
// that resident memory and the arena stay flat after `warmup` runs.
void RunLong(const char* name, const char* source,
             const std::vector<std::pair<std::string, at::Tensor>>& attributes,
             const std::vector<std::vector<c10::IValue>>& inputs, int warmup, int runs) {
  absl::StatusOr<torch::jit::Module> module = ModuleFromSource(source, attributes);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<StaticModule::Ptr> prepared = StaticModule::FromModule(*module, false);
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  StaticRuntime runtime(*prepared);
  auto run = [&](int i) {
    absl::StatusOr<c10::IValue> result = runtime.Run(inputs[i % inputs.size()]);
    ASSERT_TRUE(result.ok()) << result.status();
  };
  for (int i = 0; i < warmup; ++i) run(i);
  const double resident_after_warmup = ResidentMiB();
  const size_t arena_after_warmup = runtime.memory_stats().intermediates.arena_bytes;
  for (int i = 0; i < runs; ++i) run(i);
  const double resident_after = ResidentMiB();
  const size_t arena_after = runtime.memory_stats().intermediates.arena_bytes;
  std::cout << name << ": " << runs << " runs; resident " << resident_after_warmup << " MiB after "
            << warmup << " warm-up runs, " << resident_after << " MiB after; arena "
            << arena_after_warmup << " B, " << arena_after << " B\n";
  EXPECT_LT(resident_after - resident_after_warmup, 8.0) << name;
  EXPECT_EQ(arena_after, arena_after_warmup) << name;
}

TEST(LongRunTest, AMillionRunsOfASmallModel) {
  RunLong("small", R"(
def forward(self, x, y):
    a = torch.relu(x * 2.0 + y)
    b = torch.mm(a, y.t())
    return torch.cat([b, a], 1).sum(0)
)",
          {}, {{at::randn({8, 16}), at::randn({8, 16})}}, 10000, 1000000);
}

TEST(LongRunTest, TenThousandRunsOfAConvolutionalModelWithAlternatingShapes) {
  RunLong("cnn", R"(
def forward(self, x):
    y = torch.relu(torch.conv2d(x, self.w1, self.b1, 1, 1))
    y = torch.relu(torch.conv2d(y, self.w2, self.b2, 2, 1))
    return torch.adaptive_avg_pool2d(y, [1, 1]).flatten(1)
)",
          {{"w1", at::randn({16, 3, 3, 3})},
           {"b1", at::randn({16})},
           {"w2", at::randn({32, 16, 3, 3})},
           {"b2", at::randn({32})}},
          {{at::randn({2, 3, 32, 32})}, {at::randn({1, 3, 48, 40})}, {at::randn({4, 3, 24, 24})}},
          300, 10000);
}

}  // namespace
}  // namespace static_runtime
