// Concurrency under stress: 8 threads share one RuntimePool per model (4
// corpus models, at most 3 runtimes each, so threads wait for runtimes and
// runtimes pass between threads), calling models at random with random
// shapes, and one call in five a bad one (a missing argument, a string for a
// tensor). Every good call equals the JIT's result, every bad one is an
// InvalidArgument error, and a runtime whose run failed goes back to its
// pool clean: the calls after it on that runtime are right too. Run under
// ASan (`bazel test --config=asan`) it also shows no races on memory.
#include <atomic>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "ATen/ATen.h"
#include "gtest/gtest.h"
#include "runtime/corpus_module.h"
#include "runtime/pool.h"
#include "verify/corpus.h"
#include "verify/reference.h"

namespace static_runtime {
namespace {

TEST(ConcurrencyStressTest, EightThreadsFourModelsGoodAndBadCalls) {
  struct Served {
    const corpus::Model* model;
    torch::jit::Module module;
    std::unique_ptr<RuntimePool> pool;
  };
  std::vector<Served> served;
  for (const char* name : {"mlp", "ads_ranking", "if_branch", "attention_block"}) {
    absl::StatusOr<CorpusModule> prepared = PrepareCorpusModel(corpus::ModelNamed(name));
    ASSERT_TRUE(prepared.ok()) << prepared.status();
    served.push_back({prepared->model, prepared->module,
                      std::make_unique<RuntimePool>(prepared->static_module, 3)});
  }
  constexpr int kThreads = 8;
  constexpr int kCallsPerThread = 60;
  std::atomic<int> wrong{0}, bad_calls{0}, good_calls{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 random(t);
      corpus::InputRng rng(t);
      for (int call = 0; call < kCallsPerThread; ++call) {
        Served& s = served[random() % served.size()];
        const std::vector<c10::IValue> inputs = s.model->inputs(rng, 1 + random() % 6);
        if (random() % 5 == 0) {
          std::vector<c10::IValue> bad = inputs;
          if (random() % 2 == 0) {
            bad.pop_back();  // a missing argument
          } else {
            bad[0] = std::string("not a tensor");
          }
          absl::StatusOr<c10::IValue> result = s.pool->Run(bad);
          if (result.ok() || result.status().code() != absl::StatusCode::kInvalidArgument) {
            ++wrong;
          }
          ++bad_calls;
          continue;
        }
        c10::IValue expected;
        try {
          expected = s.module.forward(reference::DeepCopy(inputs));
        } catch (const std::exception&) {
          continue;  // inputs the model itself rejects
        }
        absl::StatusOr<c10::IValue> result = s.pool->Run(inputs);
        if (!result.ok() || !reference::Compare(expected, *result).ok()) ++wrong;
        ++good_calls;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong, 0);
  EXPECT_GT(bad_calls, kThreads * kCallsPerThread / 10);
  EXPECT_GT(good_calls, kThreads * kCallsPerThread / 2);
  for (const Served& s : served) EXPECT_LE(s.pool->runtimes_created(), 3u);
}

}  // namespace
}  // namespace static_runtime
