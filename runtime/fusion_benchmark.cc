// Pointwise fusion against the same runtime without it: a chain of 10
// elementwise ops on one float tensor of each size, the two runtimes
// interleaved in one benchmark (one intra-op thread); reports both means and
// their ratio (fused / unfused).
//
//   bazel run -c opt //runtime:fusion_benchmark
#include <chrono>
#include <vector>

#include "ATen/ATen.h"
#include "benchmark/benchmark.h"
#include "glog/logging.h"
#include "passes/load.h"
#include "runtime/static_runtime.h"

namespace static_runtime {
namespace {

constexpr char kChain[] = R"(
def forward(self, x, y):
    a = x + y
    b = torch.relu(a)
    c = b * 0.5
    d = torch.sigmoid(c)
    e = d - x
    f = torch.tanh(e)
    g = f * y
    h = torch.clamp(g, -1.0, 1.0)
    i = h + a
    return torch.exp(i)
)";

StaticModule::Ptr Prepare(const torch::jit::Module& module, bool fusion) {
  Options options;
  options.enable_fusion = fusion;
  absl::StatusOr<StaticModule::Ptr> prepared =
      StaticModule::FromModule(module, /*is_frozen=*/false, options);
  CHECK(prepared.ok()) << prepared.status();
  return *prepared;
}

void BM_ChainFusedVsUnfused(benchmark::State& state) {
  absl::StatusOr<torch::jit::Module> module = ModuleFromSource(kChain);
  CHECK(module.ok()) << module.status();
  StaticRuntime fused(Prepare(*module, true));
  StaticRuntime unfused(Prepare(*module, false));
  const std::vector<c10::IValue> inputs = {at::randn({state.range(0), state.range(1)}),
                                           at::randn({state.range(0), state.range(1)})};
  using Clock = std::chrono::steady_clock;
  Clock::duration fused_time{0};
  Clock::duration unfused_time{0};
  for (auto _ : state) {
    const auto start = Clock::now();
    benchmark::DoNotOptimize(fused.Run(inputs));
    const auto middle = Clock::now();
    benchmark::DoNotOptimize(unfused.Run(inputs));
    const auto end = Clock::now();
    fused_time += middle - start;
    unfused_time += end - middle;
  }
  const double iterations = static_cast<double>(state.iterations());
  state.counters["fused_us"] =
      std::chrono::duration<double, std::micro>(fused_time).count() / iterations;
  state.counters["unfused_us"] =
      std::chrono::duration<double, std::micro>(unfused_time).count() / iterations;
  state.counters["ratio"] = std::chrono::duration<double>(fused_time).count() /
                            std::chrono::duration<double>(unfused_time).count();
}
BENCHMARK(BM_ChainFusedVsUnfused)->Args({8, 16})->Args({1024, 1024});

}  // namespace
}  // namespace static_runtime
