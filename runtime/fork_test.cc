// Forked calls (prim::fork / aten::wait) and asynchronous runs: models
// with parallel towers, a tower forked inside an If and inside another
// tower, a fork nothing waits for, futures in a list and a fork that raises
// give the JIT's results under every option set (forks run in parallel, or
// inlined with the runtime rewrites off); RunAsync of runtimes, pools and
// StaticMethod from several threads at once, on LibTorch's inter-op pool or
// on a launcher of the caller's, which the model's forks use too.
#include <atomic>
#include <deque>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ATen/ATen.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "load/load.h"
#include "runtime/pool.h"
#include "runtime/static_method.h"
#include "runtime/static_runtime.h"
#include "torch/script.h"
#include "verify/option_sets.h"
#include "verify/run_check.h"

namespace static_runtime {
namespace {

constexpr char kTowers[] = "runtime/testdata/fork_towers.pt";
constexpr char kThreeTowers[] = "runtime/testdata/fork_three_towers.pt";
constexpr char kNestedModule[] = "runtime/testdata/fork_nested_module.pt";
constexpr char kFutureList[] = "runtime/testdata/fork_future_list.pt";
constexpr char kFailing[] = "runtime/testdata/fork_failing.pt";

bool HasFork(const torch::jit::Graph& graph) {
  for (const torch::jit::Node* node : graph.nodes()) {
    if (node->kind() == c10::prim::fork) return true;
  }
  return false;
}

TEST(ForkTest, ForkedModelsMatchTheJitUnderEveryOptionSet) {
  struct Case {
    const char* path;
    std::vector<std::vector<c10::IValue>> inputs;
  };
  const std::vector<Case> cases = {
      {kTowers, {{at::randn({3, 8}), true}, {at::randn({5, 8}), false}}},
      {kThreeTowers, {{at::randn({3, 8}), true}, {at::randn({2, 8}), false}}},
      {kNestedModule, {{at::randn({3, 8}), true}, {at::randn({2, 8}), false}}},
      {kFutureList, {{at::randn({3, 8})}, {at::randn({1, 8})}}},
  };
  for (const Case& c : cases) {
    torch::jit::Module module = torch::jit::load(c.path);
    for (const golden::OptionSet& option_set : golden::OptionSets()) {
      SCOPED_TRACE(absl::StrCat(c.path, " under ", option_set.name));
      absl::StatusOr<StaticModule::Ptr> prepared =
          StaticModule::FromFile(c.path, option_set.options);
      ASSERT_TRUE(prepared.ok()) << prepared.status();
      // Forks stay forks when they run in parallel, unless a forked module
      // forks one of its own (then they are inlined); inlined, those only
      // waited for disappear (the list's stay).
      const bool parallel = option_set.options.parallel_forks && c.path != kNestedModule;
      EXPECT_EQ(HasFork(*(*prepared)->graph()), parallel || c.path == kFutureList);
      StaticRuntime runtime(*prepared);
      for (int repeat = 0; repeat < 2; ++repeat) {
        for (const std::vector<c10::IValue>& inputs : c.inputs) {
          const absl::Status checked =
              golden::CheckRunAgainstJit(module, runtime, inputs, golden::WhenTheJitRaises::kFail);
          EXPECT_TRUE(checked.ok()) << checked;
        }
      }
    }
  }
}

TEST(ForkTest, AForkedCallsErrorComesOutOfItsWaitWithTheNodeInsideTheFork) {
  torch::jit::Module failing = torch::jit::load(kFailing);
  for (bool parallel : {true, false}) {
    Options options;
    options.parallel_forks = parallel;
    absl::StatusOr<StaticModule::Ptr> prepared = StaticModule::FromFile(kFailing, options);
    ASSERT_TRUE(prepared.ok()) << prepared.status();
    StaticRuntime runtime(*prepared);
    for (int64_t fail_at : {1, -1, 0, 5}) {
      const std::vector<c10::IValue> inputs = {at::randn({2, 3}), int64_t{3}, fail_at};
      absl::StatusOr<c10::IValue> result = runtime.Run(inputs);
      if (fail_at >= 0 && fail_at < 3) {
        ASSERT_FALSE(result.ok());
        // The model's own raise, also through a fork.
        EXPECT_EQ(result.status().code(), absl::StatusCode::kAborted) << result.status();
        const std::string message(result.status().message());
        EXPECT_THAT(message, testing::AllOf(testing::HasSubstr("aten::wait"),
                                            testing::HasSubstr("the tower failed")));
        // Run by a forked static module, the error names the failing node
        // of the fork and its source line.
        if (parallel) {
          EXPECT_THAT(message, testing::AllOf(testing::HasSubstr("forked call: node"),
                                              testing::HasSubstr("prim::RaiseException"),
                                              testing::HasSubstr("code/__torch__.py")));
        }
      } else {
        ASSERT_TRUE(result.ok()) << result.status();
        EXPECT_TRUE(
            golden::CheckRunAgainstJit(failing, runtime, inputs, golden::WhenTheJitRaises::kFail)
                .ok());
      }
      EXPECT_EQ(runtime.NumHeldValues(), 0u);
    }
  }
}

// The forked call returns its argument, made by a fused node (whose result
// alias analysis cannot place, so only the fork itself keeps it out of the
// plan): the argument lives on in the future until the wait, and after it
// as the wait's result, while later nodes take planned memory. With
// recycled memory poisoned, reusing its memory early changes the result.
TEST(ForkTest, AValueAForkedCallReturnsIsNotRecycledBeforeItsWait) {
  absl::StatusOr<torch::jit::Module> module = ModuleFromSource(R"(
def forward(self, x):
    a = torch.relu(x) * 2.0 + 1.0
    future = fork(self.same, a)
    b = torch.sigmoid(x) * 3.0 - 1.0
    c = torch.tanh(b) * 0.5 + b
    return torch.wait(future) + c

def same(self, y: Tensor) -> Tensor:
    return y
)");
  ASSERT_TRUE(module.ok()) << module.status();
  for (bool parallel : {true, false}) {
    Options options;
    options.poison_recycled_memory = true;
    options.parallel_forks = parallel;
    absl::StatusOr<StaticModule::Ptr> prepared =
        StaticModule::FromModule(*module, /*is_frozen=*/false, options);
    ASSERT_TRUE(prepared.ok()) << prepared.status();
    StaticRuntime runtime(*prepared);
    for (int64_t rows : {3, 5, 3, 5}) {
      const absl::Status checked = golden::CheckRunAgainstJit(
          *module, runtime, {at::randn({rows, 8})}, golden::WhenTheJitRaises::kFail);
      EXPECT_TRUE(checked.ok()) << "parallel forks " << parallel << ": " << checked;
    }
  }
}

// A launcher of the caller's: each task on a thread of its own, counted.
class CountingLauncher {
 public:
  TaskLauncher launcher() {
    return [this](std::function<void()> task) {
      ++launched_;
      absl::MutexLock lock(&mutex_);
      threads_.emplace_back(std::move(task));
    };
  }
  ~CountingLauncher() { Join(); }
  void Join() {
    std::vector<std::thread> threads;
    {
      absl::MutexLock lock(&mutex_);
      threads.swap(threads_);
    }
    for (std::thread& thread : threads) thread.join();
  }
  int launched() const { return launched_; }

 private:
  std::atomic<int> launched_{0};
  absl::Mutex mutex_;
  std::vector<std::thread> threads_;
};

TEST(ForkTest, RunAsyncFromSeveralThreadsAtOnce) {
  torch::jit::Module module = torch::jit::load(kThreeTowers);
  absl::StatusOr<StaticModule::Ptr> prepared = StaticModule::FromFile(kThreeTowers);
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  RuntimePool pool(*prepared, 3);
  StaticMethod method(*prepared, 3);
  constexpr int kThreads = 4;
  constexpr int kRuns = 20;
  std::vector<std::thread> threads;
  std::atomic<int> mismatches{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      StaticRuntime runtime(*prepared);
      for (int run = 0; run < kRuns; ++run) {
        const std::vector<c10::IValue> inputs = {at::randn({1 + run % 4, 8}), run % 2 == 0};
        const at::Tensor expected = module.forward(inputs).toTensor();
        // One of the three, in turn.
        c10::intrusive_ptr<c10::ivalue::Future> future =
            (run + t) % 3 == 0   ? runtime.RunAsync(inputs)
            : (run + t) % 3 == 1 ? pool.RunAsync(inputs)
                                 : method.RunAsync(inputs);
        future->wait();
        if (future->hasError() || !at::allclose(future->value().toTensor(), expected)) {
          ++mismatches;
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(mismatches, 0);
}

TEST(ForkTest, RunAsyncUsesTheCallersLauncherForTheRunAndItsForks) {
  torch::jit::Module module = torch::jit::load(kThreeTowers);
  absl::StatusOr<StaticModule::Ptr> prepared = StaticModule::FromFile(kThreeTowers);
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  StaticRuntime runtime(*prepared);
  CountingLauncher launcher;
  const std::vector<c10::IValue> inputs = {at::randn({3, 8}), true};
  c10::intrusive_ptr<c10::ivalue::Future> future =
      runtime.RunAsync(inputs, {}, launcher.launcher());
  future->wait();
  ASSERT_FALSE(future->hasError()) << future->tryRetrieveErrorMessage();
  EXPECT_TRUE(at::allclose(future->value().toTensor(), module.forward(inputs).toTensor()));
  // The run, its three towers and the tower forked inside one of them (each
  // started by its launched task or, if its wait came first, by the wait).
  EXPECT_EQ(launcher.launched(), 5);
  launcher.Join();

  // While a run is in flight, the runtime runs nothing else.
  auto release = std::make_shared<absl::Notification>();
  TaskLauncher held = [release](std::function<void()> task) {
    std::thread([release, task = std::move(task)] {
      release->WaitForNotification();
      task();
    }).detach();
  };
  c10::intrusive_ptr<c10::ivalue::Future> pending = runtime.RunAsync(inputs, {}, held);
  absl::StatusOr<c10::IValue> meanwhile = runtime.Run(inputs);
  EXPECT_EQ(meanwhile.status().code(), absl::StatusCode::kFailedPrecondition);
  c10::intrusive_ptr<c10::ivalue::Future> second = runtime.RunAsync(inputs);
  second->wait();
  EXPECT_TRUE(second->hasError());
  release->Notify();
  pending->wait();
  EXPECT_FALSE(pending->hasError()) << pending->tryRetrieveErrorMessage();
  absl::StatusOr<c10::IValue> after = runtime.Run(inputs);
  EXPECT_TRUE(after.ok()) << after.status();
}

TEST(ForkTest, NestedForksOnALauncherOfOneThreadDoNotDeadlock) {
  // Tasks queued for one worker thread: a wait whose task has not started
  // runs it itself, so the nested fork never waits behind its parent.
  absl::Mutex mutex;
  std::deque<std::function<void()>> queue;
  bool done = false;
  std::thread worker([&] {
    while (true) {
      std::function<void()> task;
      {
        absl::MutexLock lock(&mutex);
        auto ready = [&] { return !queue.empty() || done; };
        mutex.Await(absl::Condition(&ready));
        if (queue.empty()) return;
        task = std::move(queue.front());
        queue.pop_front();
      }
      task();
    }
  });
  TaskLauncher one_thread = [&](std::function<void()> task) {
    absl::MutexLock lock(&mutex);
    queue.push_back(std::move(task));
  };
  torch::jit::Module module = torch::jit::load(kThreeTowers);
  absl::StatusOr<StaticModule::Ptr> prepared = StaticModule::FromFile(kThreeTowers);
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  StaticRuntime runtime(*prepared);
  for (int run = 0; run < 5; ++run) {
    const std::vector<c10::IValue> inputs = {at::randn({2, 8}), true};
    c10::intrusive_ptr<c10::ivalue::Future> future = runtime.RunAsync(inputs, {}, one_thread);
    future->wait();
    ASSERT_FALSE(future->hasError()) << future->tryRetrieveErrorMessage();
    EXPECT_TRUE(at::allclose(future->value().toTensor(), module.forward(inputs).toTensor()));
  }
  {
    absl::MutexLock lock(&mutex);
    done = true;
  }
  worker.join();
}

}  // namespace
}  // namespace static_runtime
