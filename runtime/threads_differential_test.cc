// Every corpus model on two threads at once. Two runtimes of one
// StaticModule (as a RuntimePool hands them out) run the model together,
// each round started by a barrier, on inputs of different sizes, so kernels'
// per-thread state (workspaces, scratch tensors, oneDNN scratchpads and
// streams, the fallback's stack) is used by both threads in the same
// instant. Each result must equal, bit for bit, what one runtime alone
// computes for the same inputs, both when it is returned and after the
// other thread's later runs (the caller still holds it). State that one
// thread's call clobbers for the other shows as a wrong result; under
// ThreadSanitizer (.ci/run runs this test with --config=tsan) it shows as a
// race even when the two calls do not overlap in time.
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/barrier.h"
#include "gtest/gtest.h"
#include "runtime/corpus_module.h"
#include "runtime/static_runtime.h"
#include "verify/corpus.h"
#include "verify/reference.h"

namespace static_runtime {
namespace {

constexpr int kThreads = 2;
constexpr int kRounds = 8;

// One call of a thread: its inputs and what a runtime alone returns for
// them, or that it fails (inputs the model rejects).
struct Call {
  std::vector<c10::IValue> inputs;
  c10::IValue expected;
  bool fails_alone = false;
};

// The result of `inputs` on a fresh runtime of `module`, run alone.
absl::StatusOr<c10::IValue> RunAlone(const StaticModule::Ptr& module,
                                     const std::vector<c10::IValue>& inputs) {
  StaticRuntime runtime(module);
  absl::StatusOr<c10::IValue> result = runtime.Run(reference::DeepCopy(inputs));
  if (result.ok()) return reference::DeepCopy(*result);
  return result;
}

class ThreadsDifferentialTest : public testing::TestWithParam<std::string> {};

TEST_P(ThreadsDifferentialTest, TwoThreadsAtOnceComputeWhatOneComputesAlone) {
  absl::StatusOr<CorpusModule> prepared = PrepareCorpusModel(corpus::ModelNamed(GetParam()));
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  const StaticModule::Ptr& module = prepared->static_module;

  // Thread t's round r: size 1 or 2, the threads' sizes differing in every
  // round, so one thread's workspace grows while the other uses it.
  std::vector<std::vector<Call>> calls(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    corpus::InputRng rng(100 + t);
    for (int r = 0; r < kRounds; ++r) {
      Call call;
      call.inputs = prepared->model->inputs(rng, 1 + (r + t) % 2);
      absl::StatusOr<c10::IValue> alone = RunAlone(module, call.inputs);
      if (alone.ok()) {
        // A model that does not compute the same twice (random numbers) has
        // nothing to compare.
        absl::StatusOr<c10::IValue> again = RunAlone(module, call.inputs);
        ASSERT_TRUE(again.ok()) << again.status();
        if (!reference::Compare(*alone, *again, reference::Tolerance::kBitwise).ok()) {
          GTEST_SKIP() << GetParam() << " does not compute the same result twice";
        }
        call.expected = *alone;
      } else {
        call.fails_alone = true;
      }
      calls[t].push_back(std::move(call));
    }
  }

  std::vector<std::unique_ptr<absl::Barrier>> barriers;
  for (int r = 0; r < kRounds; ++r) barriers.push_back(std::make_unique<absl::Barrier>(kThreads));
  std::vector<std::vector<std::string>> failures(kThreads);
  // Each thread's results, held until both threads are done (none for a
  // call that failed).
  std::vector<std::vector<std::optional<c10::IValue>>> held(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      StaticRuntime runtime(module);
      for (int r = 0; r < kRounds; ++r) {
        const Call& call = calls[t][r];
        barriers[r]->Block();
        absl::StatusOr<c10::IValue> result = runtime.Run(reference::DeepCopy(call.inputs));
        held[t].emplace_back();
        const std::string where = absl::StrCat("thread ", t, ", round ", r);
        if (call.fails_alone) {
          if (result.ok()) failures[t].push_back(where + ": ran, where alone it failed");
        } else if (!result.ok()) {
          failures[t].push_back(absl::StrCat(where, ": ", result.status().message()));
        } else {
          const absl::Status same =
              reference::Compare(call.expected, *result, reference::Tolerance::kBitwise);
          if (!same.ok()) failures[t].push_back(absl::StrCat(where, ": ", same.message()));
          held[t].back() = *std::move(result);
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    for (const std::string& failure : failures[t]) ADD_FAILURE() << GetParam() << ": " << failure;
    // What each caller still holds is unchanged by both threads' later runs.
    for (int r = 0; r < kRounds; ++r) {
      if (!held[t][r]) continue;
      const absl::Status same =
          reference::Compare(calls[t][r].expected, *held[t][r], reference::Tolerance::kBitwise);
      EXPECT_TRUE(same.ok()) << GetParam() << ": thread " << t << ", round " << r
                             << ", the result held while both threads ran on: " << same.message();
    }
  }
}

std::vector<std::string> ModelNames() {
  std::vector<std::string> names;
  for (const corpus::Model& model : corpus::Models()) names.push_back(model.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Corpus, ThreadsDifferentialTest, testing::ValuesIn(ModelNames()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace static_runtime
