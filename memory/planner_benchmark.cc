// Cost of memory planning: both algorithms on N random lifetimes (the graph
// of a large model has about 10,000), and the per-run Allocate + Release of
// the planner for N managed tensors.
//
//   bazel run //memory:planner_benchmark
#include <random>
#include <vector>

#include "ATen/ATen.h"
#include "benchmark/benchmark.h"
#include "memory/plan.h"
#include "memory/planner.h"

namespace static_runtime {
namespace memory {
namespace {

// Tensors defined along a chain of nodes, each living 1 to 30 nodes, 64 B to
// 64 KiB.
std::vector<Lifetime> RandomLifetimes(size_t count) {
  std::mt19937 random(42);
  std::vector<Lifetime> lifetimes(count);
  for (size_t i = 0; i < count; ++i) {
    lifetimes[i].first = i;
    lifetimes[i].last = i + std::uniform_int_distribution<size_t>(0, 29)(random);
    lifetimes[i].bytes = std::uniform_int_distribution<size_t>(64, 65536)(random);
  }
  return lifetimes;
}

void BM_Plan(benchmark::State& state, Algorithm algorithm) {
  const std::vector<Lifetime> lifetimes = RandomLifetimes(state.range(0));
  size_t arena = 0;
  for (auto _ : state) {
    arena = PlanMemory(algorithm, lifetimes, 64).arena_bytes;
    benchmark::DoNotOptimize(arena);
  }
  state.counters["arena_over_lower_bound"] =
      static_cast<double>(arena) / static_cast<double>(LowerBound(lifetimes, 64));
}
BENCHMARK_CAPTURE(BM_Plan, greedy_by_size, Algorithm::kGreedyBySize)
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Plan, storage_groups, Algorithm::kStorageGroups)
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond);

// One run's planner work for N managed tensors of 4 KiB whose kernels wrote
// them in place.
void BM_AllocateRelease(benchmark::State& state) {
  const size_t count = state.range(0);
  std::vector<Lifetime> lifetimes = RandomLifetimes(count);
  std::vector<uint32_t> slots(count);
  std::vector<TensorRecord> records(count);
  for (size_t i = 0; i < count; ++i) {
    slots[i] = i;
    records[i] = {4096, at::kFloat};
  }
  MemoryPlanner planner(slots, lifetimes, records);
  std::vector<c10::IValue> values(count);
  for (auto _ : state) {
    planner.Allocate(absl::MakeSpan(values));
    planner.Release(absl::MakeSpan(values));
  }
  state.counters["ns_per_tensor"] =
      benchmark::Counter(static_cast<double>(count), benchmark::Counter::kIsIterationInvariantRate |
                                                         benchmark::Counter::kInvert);
}
BENCHMARK(BM_AllocateRelease)->Arg(100)->Arg(1000);

}  // namespace
}  // namespace memory
}  // namespace static_runtime

BENCHMARK_MAIN();
