// Concurrency: several threads share one StaticModule through a RuntimePool
// (and through the IMethod adapter), hundreds of runs each, every output
// checked against the JIT's output for the same inputs.
#include "runtime/pool.h"

#include <atomic>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "ATen/ATen.h"
#include "gtest/gtest.h"
#include "runtime/corpus_module.h"
#include "runtime/static_method.h"
#include "verify/corpus.h"
#include "verify/reference.h"

namespace static_runtime {
namespace {

struct Case {
  std::vector<c10::IValue> inputs;
  c10::IValue expected;
};

// Input sets of different shapes with the JIT's outputs.
std::vector<Case> JitCases(const std::string& name, torch::jit::Module& module) {
  const corpus::Model& model = corpus::ModelNamed(name);
  std::vector<Case> cases;
  for (int seed = 0; seed < 6; ++seed) {
    corpus::InputRng rng(seed);
    Case c;
    c.inputs = model.inputs(rng, 1 + seed % 3);
    c.expected = module.forward(c.inputs);
    cases.push_back(std::move(c));
  }
  return cases;
}

// `threads` threads each calling `pool` `calls` times, each thread going
// through `cases` from its own place; joined. The calls that failed or
// differed from the JIT's output.
int MismatchesOfCallsFromThreads(RuntimePool& pool, const std::vector<Case>& cases, int threads,
                                 int calls) {
  std::atomic<int> mismatches{0};
  std::vector<std::thread> running;
  for (int t = 0; t < threads; ++t) {
    running.emplace_back([&, t] {
      for (int i = 0; i < calls; ++i) {
        const Case& c = cases[(t + i) % cases.size()];
        absl::StatusOr<c10::IValue> result = pool.Run(c.inputs);
        if (!result.ok() || !reference::Compare(c.expected, *result).ok()) ++mismatches;
      }
    });
  }
  for (std::thread& thread : running) thread.join();
  return mismatches.load();
}

// A model, and whether its recycled memory is poisoned (Options::
// poison_recycled_memory: a run that read memory another thread's run or
// its own recycled would see NaN).
class PoolTest : public testing::TestWithParam<std::tuple<std::string, bool>> {};

TEST_P(PoolTest, ConcurrentRunsMatchTheJit) {
  const auto& [name, poisoned] = GetParam();
  Options options;
  options.poison_recycled_memory = poisoned;
  absl::StatusOr<CorpusModule> prepared = PrepareCorpusModel(corpus::ModelNamed(name), options);
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  const std::vector<Case> cases = JitCases(name, prepared->module);

  constexpr int kThreads = 4;
  constexpr int kRunsPerThread = 250;
  RuntimePool pool(prepared->static_module, /*max_runtimes=*/3);
  std::atomic<int> mismatches{0};
  std::atomic<int> runs{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRunsPerThread; ++i) {
        const Case& c = cases[(t + i) % cases.size()];
        absl::StatusOr<c10::IValue> result = pool.Run(c.inputs);
        if (!result.ok() || !reference::Compare(c.expected, *result).ok()) ++mismatches;
        ++runs;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(runs.load(), kThreads * kRunsPerThread);
  EXPECT_GE(pool.runtimes_created(), 1u);
  EXPECT_LE(pool.runtimes_created(), 3u);
}

INSTANTIATE_TEST_SUITE_P(Models, PoolTest,
                         testing::Combine(testing::Values("mlp", "ads_ranking", "lstm_cell_loop",
                                                          "if_branch"),
                                          testing::Bool()));

// One runtime, four threads: every call but the first waits for the runtime
// another thread holds, handed over from that thread's slot or the idle list
// (a lost hand-over would hang here).
TEST(RuntimePoolTest, OneRuntimeServesManyThreads) {
  absl::StatusOr<CorpusModule> prepared = PrepareCorpusModel(corpus::ModelNamed("mlp"));
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  const std::vector<Case> cases = JitCases("mlp", prepared->module);
  RuntimePool pool(prepared->static_module, /*max_runtimes=*/1);
  EXPECT_EQ(MismatchesOfCallsFromThreads(pool, cases, /*threads=*/4, /*calls=*/300), 0);
  EXPECT_EQ(pool.runtimes_created(), 1u);
}

// Calls from one thread reuse one runtime; a second thread calling while the
// first is idle takes that runtime rather than making one.
TEST(RuntimePoolTest, ReusesIdleRuntimesAcrossThreads) {
  absl::StatusOr<CorpusModule> prepared = PrepareCorpusModel(corpus::ModelNamed("mlp"));
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  const std::vector<Case> cases = JitCases("mlp", prepared->module);
  RuntimePool pool(prepared->static_module, /*max_runtimes=*/4);
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(pool.Run(cases[i % cases.size()].inputs).ok());
  EXPECT_EQ(pool.runtimes_created(), 1u);
  std::thread other([&] {
    for (int i = 0; i < 10; ++i) EXPECT_TRUE(pool.Run(cases[i % cases.size()].inputs).ok());
  });
  other.join();
  EXPECT_EQ(pool.runtimes_created(), 1u);
}

// The memory of the runtimes that serve: none before a call; the arena the
// calls grew (the largest shape's), not a fresh runtime's; read while other
// threads call (each runtime read is out of their reach meanwhile).
TEST(RuntimePoolTest, DescribesTheMemoryItsServingRuntimesHold) {
  absl::StatusOr<CorpusModule> prepared = PrepareCorpusModel(corpus::ModelNamed("mlp"));
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  const std::vector<Case> cases = JitCases("mlp", prepared->module);
  RuntimePool pool(prepared->static_module, /*max_runtimes=*/2);
  EXPECT_TRUE(pool.IdleRuntimesMemoryStats().empty());
  // The first run measures, the second runs in the arena.
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(pool.Run(cases[0].inputs).ok());  // size 1
  const std::vector<MemoryStats> small = pool.IdleRuntimesMemoryStats();
  ASSERT_EQ(small.size(), 1u);
  EXPECT_GT(small[0].intermediates.arena_bytes, 0u);
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(pool.Run(cases[2].inputs).ok());  // size 3
  ASSERT_TRUE(pool.Run(cases[0].inputs).ok());
  const std::vector<MemoryStats> grown = pool.IdleRuntimesMemoryStats();
  ASSERT_EQ(grown.size(), 1u);
  EXPECT_GT(grown[0].intermediates.arena_bytes, small[0].intermediates.arena_bytes);

  std::atomic<bool> done{false};
  std::thread reader([&] {
    while (!done.load()) pool.IdleRuntimesMemoryStats();
  });
  EXPECT_EQ(MismatchesOfCallsFromThreads(pool, cases, /*threads=*/3, /*calls=*/200), 0);
  done = true;
  reader.join();
  EXPECT_EQ(pool.IdleRuntimesMemoryStats().size(), pool.runtimes_created());
}

TEST(StaticMethodTest, StandsInForAnIMethod) {
  absl::StatusOr<CorpusModule> prepared = PrepareCorpusModel(corpus::ModelNamed("kwargs_defaults"));
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  StaticMethod static_method(prepared->static_module);
  const torch::IMethod& method = static_method;

  EXPECT_EQ(method.name(), "forward");
  EXPECT_EQ(method.getArgumentNames(), (std::vector<std::string>{"x", "scale", "bias"}));
  const at::Tensor x = at::randn({2, 3});
  const c10::IValue expected = prepared->module.forward({x}, {{"scale", 3.0}});
  const c10::IValue actual = method({x}, {{"scale", 3.0}});
  EXPECT_TRUE(reference::Compare(expected, actual).ok()) << reference::Compare(expected, actual);
  EXPECT_THROW(method({x}, {{"nope", 1.0}}), c10::Error);
}

}  // namespace
}  // namespace static_runtime
