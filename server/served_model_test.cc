#include "server/served_model.h"

#include <atomic>
#include <functional>
#include <thread>
#include <vector>

#include "ATen/ATen.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "torch/csrc/jit/frontend/function_schema_parser.h"

namespace static_runtime {
namespace server {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// An engine that doubles its one tensor argument (or runs `body`), records
// the rows of every run, and can be held inside a run until released.
class FakeEngine : public Engine {
 public:
  using Body = std::function<c10::IValue(const at::Tensor&)>;
  explicit FakeEngine(Body body = nullptr)
      : schema_(torch::jit::parseSchema("forward(Tensor x) -> Tensor")), body_(std::move(body)) {}

  const c10::FunctionSchema& schema() const override { return schema_; }
  absl::StatusOr<c10::IValue> Run(const std::vector<c10::IValue>& arguments) override {
    const at::Tensor x = arguments.at(0).toTensor();
    {
      absl::MutexLock lock(&mutex_);
      rows_.push_back(x.dim() > 0 ? x.size(0) : 0);
      ++entered_;
      auto released = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return !held_; };
      mutex_.Await(absl::Condition(&released));
    }
    return body_ ? body_(x) : c10::IValue(x * 2);
  }

  void Hold() {
    absl::MutexLock lock(&mutex_);
    held_ = true;
  }
  void Release() {
    absl::MutexLock lock(&mutex_);
    held_ = false;
  }
  void AwaitEntered(int runs) {
    absl::MutexLock lock(&mutex_);
    auto entered = [this, runs]()
                       ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return entered_ >= runs; };
    mutex_.Await(absl::Condition(&entered));
  }
  std::vector<int64_t> rows() {
    absl::MutexLock lock(&mutex_);
    return rows_;
  }

 private:
  c10::FunctionSchema schema_;
  Body body_;
  absl::Mutex mutex_;
  bool held_ ABSL_GUARDED_BY(mutex_) = false;
  int entered_ ABSL_GUARDED_BY(mutex_) = 0;
  std::vector<int64_t> rows_ ABSL_GUARDED_BY(mutex_);
};

struct Served {
  FakeEngine* engine;
  std::unique_ptr<ServedModel> model;
};

Served Serve(ModelConfig config, FakeEngine::Body body = nullptr) {
  auto engine = std::make_unique<FakeEngine>(std::move(body));
  FakeEngine* raw = engine.get();
  return {raw, ServedModel::Make("fake", std::move(engine), std::move(config)).value()};
}

absl::StatusOr<std::vector<NamedTensor>> Call(ServedModel& model, const at::Tensor& x,
                                              absl::Time deadline = absl::InfiniteFuture()) {
  return model.Infer({{"x", x}}, deadline);
}

// Runs `call` on a thread of its own; join() gives its result.
class Caller {
 public:
  explicit Caller(std::function<absl::StatusOr<std::vector<NamedTensor>>()> call)
      : thread_([this, call = std::move(call)] { result_ = call(); }) {}
  absl::StatusOr<std::vector<NamedTensor>> join() {
    thread_.join();
    return result_;
  }

 private:
  absl::StatusOr<std::vector<NamedTensor>> result_;
  std::thread thread_;
};

TEST(ServedModel, RunsARequest) {
  Served served = Serve(ModelConfig());
  std::vector<NamedTensor> outputs = Call(*served.model, at::ones({2})).value();
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs[0].name, "output");
  EXPECT_TRUE(at::equal(outputs[0].tensor, at::full({2}, 2.0f)));
  EXPECT_EQ(served.model->metrics().success(), 1);
  EXPECT_THAT(Call(*served.model, at::ones({2}), absl::InfiniteFuture()).ok(), true);
  EXPECT_THAT(served.model->Infer({{"y", at::ones({1})}}).status().message(),
              HasSubstr("unknown input 'y'"));
  EXPECT_EQ(served.model->metrics().failure(), 1);
}

// The warm-up samples run on the engine before Make returns (so before the
// repository calls the model ready), uncounted in the metrics: as given
// without batching, at every batch size up to max_batch_size with it.
TEST(ServedModel, WarmsUpEverySampleBeforeItIsMade) {
  ModelConfig config;
  config.warmup = {{{"x", "FP32", {3, 2}}}, {{"x", "FP32", {5, 4}}}};
  Served served = Serve(config);
  EXPECT_THAT(served.engine->rows(), ElementsAre(3, 5));
  EXPECT_EQ(served.model->metrics().runs(), 0);
  EXPECT_EQ(served.model->metrics().success(), 0);

  config.max_batch_size = 3;
  config.warmup = {{{"x", "FP32", {1, 2}}}};
  Served batched = Serve(config);
  EXPECT_THAT(batched.engine->rows(), ElementsAre(1, 2, 3));
}

TEST(ServedModel, AFailingWarmUpNamesItsSample) {
  ModelConfig config;
  config.max_batch_size = 2;
  config.warmup = {{{"x", "FP32", {1, 2}}}, {{"y", "FP32", {1, 2}}}};
  absl::StatusOr<std::unique_ptr<ServedModel>> made =
      ServedModel::Make("fake", std::make_unique<FakeEngine>(), config);
  ASSERT_FALSE(made.ok());
  EXPECT_THAT(made.status().message(), HasSubstr("warmup[1] at batch size 1 failed: "));
  EXPECT_THAT(made.status().message(), HasSubstr("'y'"));

  config.warmup = {{{"x", "FP32", {}}}};
  made = ServedModel::Make("fake", std::make_unique<FakeEngine>(), config);
  ASSERT_FALSE(made.ok());
  EXPECT_THAT(made.status().message(), HasSubstr("input 'x' has no dimension 0"));
}

TEST(ServedModel, AFullQueueRefusesAtOnce) {
  ModelConfig config;
  config.queue_size = 1;
  Served served = Serve(config);
  served.engine->Hold();
  Caller running([&] { return Call(*served.model, at::ones({1})); });
  served.engine->AwaitEntered(1);
  Caller queued([&] { return Call(*served.model, at::ones({1})); });
  while (served.model->queue_length() < 1) absl::SleepFor(absl::Milliseconds(1));
  absl::StatusOr<std::vector<NamedTensor>> refused = Call(*served.model, at::ones({1}));
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(refused.status().message(), HasSubstr("queue is full (1 requests waiting)"));
  served.engine->Release();
  EXPECT_TRUE(running.join().ok());
  EXPECT_TRUE(queued.join().ok());
  EXPECT_GE(served.model->metrics().rejected(), 1);
}

TEST(ServedModel, ExpiredAndCancelledRequestsAreDroppedUnrun) {
  Served served = Serve(ModelConfig());
  served.engine->Hold();
  Caller running([&] { return Call(*served.model, at::ones({1})); });
  served.engine->AwaitEntered(1);
  const absl::Time start = absl::Now();
  absl::StatusOr<std::vector<NamedTensor>> late =
      Call(*served.model, at::ones({1}), start + absl::Milliseconds(50));
  EXPECT_EQ(late.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  std::atomic<bool> gone{false};
  Caller cancelled([&] {
    return served.model->Infer({{"x", at::ones({1})}}, absl::InfiniteFuture(),
                               [&gone] { return gone.load(); });
  });
  gone = true;
  EXPECT_EQ(cancelled.join().status().code(), absl::StatusCode::kCancelled);
  served.engine->Release();
  EXPECT_TRUE(running.join().ok());
  Call(*served.model, at::ones({1})).value();             // after the dropped ones
  EXPECT_THAT(served.engine->rows(), ElementsAre(1, 1));  // neither dropped request ran
  EXPECT_EQ(served.model->metrics().expired(), 2);
}

TEST(ServedModel, BatchesQueuedRequestsAndSplitsTheOutputs) {
  ModelConfig config;
  config.max_batch_size = 8;
  config.max_queue_delay_us = 1000;
  Served served = Serve(config);
  served.engine->Hold();
  Caller first([&] { return Call(*served.model, at::zeros({1, 3})); });
  served.engine->AwaitEntered(1);
  std::vector<at::Tensor> inputs = {at::randn({1, 3}), at::randn({2, 3}), at::randn({3, 3})};
  std::vector<std::unique_ptr<Caller>> callers;
  for (const at::Tensor& x : inputs) {
    callers.push_back(std::make_unique<Caller>([&served, x] { return Call(*served.model, x); }));
  }
  while (served.model->queue_length() < 3) absl::SleepFor(absl::Milliseconds(1));
  // Another shape waits for a run of its own.
  Caller other([&] { return Call(*served.model, at::ones({1, 4})); });
  while (served.model->queue_length() < 4) absl::SleepFor(absl::Milliseconds(1));
  served.engine->Release();
  EXPECT_TRUE(first.join().ok());
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::vector<NamedTensor> outputs = callers[i]->join().value();
    EXPECT_TRUE(at::equal(outputs[0].tensor, inputs[i] * 2)) << i;
  }
  EXPECT_TRUE(other.join().ok());
  EXPECT_THAT(served.engine->rows(), ElementsAre(1, 6, 1));
  EXPECT_THAT(Call(*served.model, at::ones({9, 3})).status().message(),
              HasSubstr("9 rows is more than the model's max_batch_size of 8"));
  EXPECT_THAT(Call(*served.model, at::ones({})).status().message(),
              HasSubstr("input 'x' has no dimension 0"));
}

TEST(ServedModel, ABatchWhoseOutputHasNoBatchDimensionFailsEveryRequest) {
  ModelConfig config;
  config.max_batch_size = 8;
  Served served = Serve(config, [](const at::Tensor& x) { return c10::IValue(x.sum()); });
  served.engine->Hold();
  Caller first([&] { return Call(*served.model, at::ones({1, 2})); });
  served.engine->AwaitEntered(1);
  Caller second([&] { return Call(*served.model, at::ones({1, 2})); });
  Caller third([&] { return Call(*served.model, at::ones({1, 2})); });
  while (served.model->queue_length() < 2) absl::SleepFor(absl::Milliseconds(1));
  served.engine->Release();
  for (Caller* caller : {&first, &second, &third}) {  // first: alone, but still no batch
    absl::StatusOr<std::vector<NamedTensor>> result = caller->join();
    EXPECT_EQ(result.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(result.status().message(), HasSubstr("set max_batch_size to 0"));
  }
}

TEST(ServedModel, StopFinishesQueuedRequestsAndRefusesNewOnes) {
  Served served = Serve(ModelConfig());
  served.engine->Hold();
  Caller running([&] { return Call(*served.model, at::ones({1})); });
  served.engine->AwaitEntered(1);
  Caller queued([&] { return Call(*served.model, at::ones({1})); });
  while (served.model->queue_length() < 1) absl::SleepFor(absl::Milliseconds(1));
  std::thread stopper([&] { served.model->Stop(); });
  absl::SleepFor(absl::Milliseconds(50));
  EXPECT_EQ(Call(*served.model, at::ones({1})).status().code(), absl::StatusCode::kUnavailable);
  served.engine->Release();
  stopper.join();
  EXPECT_TRUE(running.join().ok());
  EXPECT_TRUE(queued.join().ok());
}

}  // namespace
}  // namespace server
}  // namespace static_runtime
