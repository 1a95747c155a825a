#include "server/served_model.h"

#include <atomic>
#include <utility>

#include "ATen/ops/cat.h"
#include "ATen/ops/zeros.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/notification.h"
#include "errors/status_macros.h"
#include "execution/background_work.h"
#include "server/tensor_codec.h"

namespace static_runtime {
namespace server {
namespace {

// How often a waiting request looks whether its client is still there.
constexpr absl::Duration kPoll = absl::Milliseconds(20);

absl::Status Unloading(const std::string& model) {
  return absl::UnavailableError(absl::StrCat("model '", model, "' is being unloaded"));
}

absl::Status QueueFull(const std::string& model, int queue_size) {
  return absl::ResourceExhaustedError(absl::StrCat("model '", model, "': the queue is full (",
                                                   queue_size, " requests waiting); retry later"));
}

absl::Status DeadlinePassed(const std::string& model) {
  return absl::DeadlineExceededError(
      absl::StrCat("model '", model, "': the request's deadline passed before it ran"));
}

// The wait's end: the deadline, or the next look at the client.
absl::Time WakeUp(absl::Time deadline, const std::function<bool()>& cancelled) {
  return cancelled ? std::min(deadline, absl::Now() + kPoll) : deadline;
}

// Why a request that is still waiting must be dropped now: its deadline
// passed, or its client went away; OK to keep waiting.
absl::Status WhyDropped(const std::string& model, absl::Time deadline,
                        const std::function<bool()>& cancelled) {
  if (absl::Now() >= deadline) return DeadlinePassed(model);
  if (cancelled && cancelled()) return absl::CancelledError("the client cancelled the request");
  return absl::OkStatus();
}

}  // namespace

struct ServedModel::Request {
  std::vector<c10::IValue> arguments;  // unbatched runs
  std::vector<NamedTensor> inputs;     // batched runs
  int64_t rows = 0;
  std::string shape_key;  // requests with equal keys batch together
  absl::Time queued;
  absl::Time deadline;
  std::atomic<bool> abandoned{false};  // the caller stopped waiting
  absl::Notification done;
  absl::StatusOr<std::vector<NamedTensor>> result;

  void Finish(absl::StatusOr<std::vector<NamedTensor>> outcome) {
    result = std::move(outcome);
    done.Notify();
  }
};

absl::StatusOr<std::unique_ptr<ServedModel>> ServedModel::Make(std::string name,
                                                               std::unique_ptr<Engine> engine,
                                                               ModelConfig config) {
  ASSIGN_OR_RETURN(ModelSignature signature, ModelSignature::Make(engine->schema(), config.inputs));
  std::unique_ptr<ServedModel> model(
      new ServedModel(std::move(name), std::move(engine), std::move(config), std::move(signature)));
  RETURN_IF_ERROR(model->WarmUp());
  return model;
}

absl::Status ServedModel::WarmUp() {
  for (size_t i = 0; i < config_.warmup.size(); ++i) {
    // 0: the sample's own shapes.
    std::vector<int64_t> batch_sizes = {0};
    if (config_.max_batch_size > 0) {
      batch_sizes.clear();
      for (int64_t rows = 1; rows <= config_.max_batch_size; ++rows) batch_sizes.push_back(rows);
    }
    for (const int64_t rows : batch_sizes) {
      const std::string where =
          absl::StrCat("warmup[", i, "]", rows > 0 ? absl::StrCat(" at batch size ", rows) : "");
      std::vector<NamedTensor> inputs;
      for (const DeclaredTensor& declared : config_.warmup[i]) {
        std::vector<int64_t> shape = declared.shape;
        if (rows > 0) {
          if (shape.empty()) {
            return absl::InvalidArgumentError(absl::StrCat(where, ": input '", declared.name,
                                                           "' has no dimension 0 to batch along"));
          }
          shape[0] = rows;
        }
        ASSIGN_OR_RETURN(c10::ScalarType type, ScalarTypeOfInput(declared.name, declared.datatype));
        inputs.push_back({declared.name, at::zeros(shape, at::TensorOptions(type))});
      }
      absl::StatusOr<std::vector<c10::IValue>> arguments = signature_.Arguments(std::move(inputs));
      absl::StatusOr<c10::IValue> result =
          arguments.ok() ? engine_->Run(*arguments) : arguments.status();
      if (!result.ok()) {
        return absl::Status(result.status().code(),
                            absl::StrCat(where, " failed: ", result.status().message()));
      }
    }
  }
  // What the samples' calls left to the background (weight layouts) is
  // done before the model is ready.
  WaitForBackgroundWork();
  return absl::OkStatus();
}

ServedModel::ServedModel(std::string name, std::unique_ptr<Engine> engine, ModelConfig config,
                         ModelSignature signature)
    : name_(std::move(name)),
      config_(std::move(config)),
      signature_(std::move(signature)),
      engine_(std::move(engine)) {
  if (config_.max_batch_size > 0) {
    for (int i = 0; i < config_.instances; ++i) workers_.emplace_back([this] { Work(); });
  }
}

ServedModel::~ServedModel() { Stop(); }

void ServedModel::Stop() {
  {
    absl::MutexLock lock(&mutex_);
    stopping_ = true;
    auto idle = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
      return running_ == 0 && waiting_ == 0;
    };
    mutex_.Await(absl::Condition(&idle));
  }
  for (std::thread& worker : workers_) {
    if (worker.joinable()) worker.join();
  }
}

absl::Status ServedModel::CheckBatchable(const std::vector<NamedTensor>& inputs, int64_t* rows,
                                         std::string* shape_key) const {
  *rows = -1;
  for (const NamedTensor& input : inputs) {
    if (input.tensor.dim() == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input '", input.name, "' has no dimension 0, which batching (max_batch_size ",
          config_.max_batch_size, ") takes as the batch"));
    }
    if (*rows >= 0 && input.tensor.size(0) != *rows) {
      return absl::InvalidArgumentError(
          absl::StrCat("input '", input.name, "' has ", input.tensor.size(0), " rows, ",
                       inputs.front().name, " has ", *rows, ": dimension 0 is the batch"));
    }
    *rows = input.tensor.size(0);
    absl::StrAppend(shape_key, input.name, ":", c10::toString(input.tensor.scalar_type()), "[",
                    absl::StrJoin(input.tensor.sizes().slice(1), ","), "];");
  }
  if (*rows > config_.max_batch_size) {
    return absl::InvalidArgumentError(
        absl::StrCat("a batch of ", *rows, " rows is more than the model's max_batch_size of ",
                     config_.max_batch_size));
  }
  return absl::OkStatus();
}

size_t ServedModel::queue_length() const {
  absl::MutexLock lock(&mutex_);
  return queue_.size() + static_cast<size_t>(waiting_);
}

absl::StatusOr<std::vector<NamedTensor>> ServedModel::RunInCaller(
    const std::vector<c10::IValue>& arguments, absl::Time deadline,
    const std::function<bool()>& cancelled) {
  const absl::Time queued = absl::Now();
  {
    absl::MutexLock lock(&mutex_);
    if (stopping_) return Unloading(name_);
    if (running_ >= config_.instances) {
      if (waiting_ >= config_.queue_size) {
        metrics_.CountRejected();
        return QueueFull(name_, config_.queue_size);
      }
      ++waiting_;
      auto free = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
        return running_ < config_.instances;
      };
      absl::Status dropped;
      while (dropped.ok() &&
             !mutex_.AwaitWithDeadline(absl::Condition(&free), WakeUp(deadline, cancelled))) {
        dropped = WhyDropped(name_, deadline, cancelled);
      }
      --waiting_;
      if (!dropped.ok()) {
        metrics_.CountExpired();
        return dropped;
      }
    }
    if (absl::Now() >= deadline) {
      metrics_.CountExpired();
      return DeadlinePassed(name_);
    }
    ++running_;
  }
  const absl::Time start = absl::Now();
  absl::StatusOr<c10::IValue> result = engine_->Run(arguments);
  metrics_.CountRun(1, absl::ToInt64Microseconds(start - queued),
                    absl::ToInt64Microseconds(absl::Now() - start));
  {
    absl::MutexLock lock(&mutex_);
    --running_;
  }
  if (!result.ok()) return result.status();
  return ModelSignature::Outputs(*result);
}

absl::StatusOr<std::vector<NamedTensor>> ServedModel::Infer(
    std::vector<NamedTensor> inputs, absl::Time deadline, const std::function<bool()>& cancelled) {
  absl::StatusOr<std::vector<NamedTensor>> outputs =
      [&]() -> absl::StatusOr<std::vector<NamedTensor>> {
    if (config_.max_batch_size == 0) {
      ASSIGN_OR_RETURN(std::vector<c10::IValue> arguments, signature_.Arguments(std::move(inputs)));
      return RunInCaller(arguments, deadline, cancelled);
    }
    auto request = std::make_shared<Request>();
    RETURN_IF_ERROR(CheckBatchable(inputs, &request->rows, &request->shape_key));
    request->inputs = inputs;
    ASSIGN_OR_RETURN(request->arguments, signature_.Arguments(std::move(inputs)));
    RETURN_IF_ERROR(Enqueue(request, deadline));
    return Await(*request, deadline, cancelled);
  }();
  if (outputs.ok()) {
    metrics_.CountSuccess();
  } else {
    metrics_.CountFailure();
  }
  return outputs;
}

absl::Status ServedModel::Enqueue(const std::shared_ptr<Request>& request, absl::Time deadline) {
  request->queued = absl::Now();
  request->deadline = deadline;
  absl::MutexLock lock(&mutex_);
  if (stopping_) return Unloading(name_);
  if (static_cast<int>(queue_.size()) >= config_.queue_size) {
    metrics_.CountRejected();
    return QueueFull(name_, config_.queue_size);
  }
  queue_.push_back(request);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<NamedTensor>> ServedModel::Await(
    Request& request, absl::Time deadline, const std::function<bool()>& cancelled) {
  while (!request.done.WaitForNotificationWithDeadline(WakeUp(deadline, cancelled))) {
    absl::Status dropped = WhyDropped(name_, deadline, cancelled);
    if (!dropped.ok()) {
      request.abandoned.store(true);
      return dropped;
    }
  }
  return std::move(request.result);
}

std::vector<std::shared_ptr<ServedModel::Request>> ServedModel::NextRun() {
  std::vector<std::shared_ptr<Request>> run{queue_.front()};
  queue_.pop_front();
  int64_t rows = run.front()->rows;
  const absl::Time give_up = run.front()->queued + absl::Microseconds(config_.max_queue_delay_us);
  while (rows < config_.max_batch_size) {
    if (queue_.empty() &&
        (stopping_ ||
         !mutex_.AwaitWithDeadline(absl::Condition(this, &ServedModel::HasWork), give_up) ||
         queue_.empty())) {
      break;
    }
    const std::shared_ptr<Request>& next = queue_.front();
    if (next->shape_key != run.front()->shape_key || rows + next->rows > config_.max_batch_size) {
      break;
    }
    rows += next->rows;
    run.push_back(next);
    queue_.pop_front();
  }
  return run;
}

void ServedModel::Work() {
  for (;;) {
    std::vector<std::shared_ptr<Request>> run;
    {
      absl::MutexLock lock(&mutex_);
      mutex_.Await(absl::Condition(this, &ServedModel::HasWork));
      if (queue_.empty()) return;  // stopping, and nothing left
      run = NextRun();
    }
    Run(std::move(run));
  }
}

void ServedModel::Run(std::vector<std::shared_ptr<Request>> run) {
  const absl::Time now = absl::Now();
  std::vector<std::shared_ptr<Request>> live;
  for (std::shared_ptr<Request>& request : run) {
    if (request->abandoned.load() || now >= request->deadline) {
      metrics_.CountExpired();
      request->Finish(DeadlinePassed(name_));
    } else {
      live.push_back(std::move(request));
    }
  }
  if (live.empty()) return;
  int64_t queue_us = 0;
  for (const std::shared_ptr<Request>& request : live) {
    queue_us += absl::ToInt64Microseconds(now - request->queued);
  }
  RunBatch(live);
  metrics_.CountRun(static_cast<int64_t>(live.size()), queue_us,
                    absl::ToInt64Microseconds(absl::Now() - now));
}

void ServedModel::RunBatch(const std::vector<std::shared_ptr<Request>>& run) {
  auto fail_all = [&](const absl::Status& status) {
    for (const std::shared_ptr<Request>& request : run) request->Finish(status);
  };
  int64_t rows = 0;
  for (const std::shared_ptr<Request>& request : run) rows += request->rows;
  std::vector<c10::IValue> arguments = run.front()->arguments;
  if (run.size() > 1) {
    // Inputs in the same order in every request (the shape keys are equal).
    std::vector<NamedTensor> batched;
    for (size_t i = 0; i < run.front()->inputs.size(); ++i) {
      std::vector<at::Tensor> parts;
      for (const std::shared_ptr<Request>& request : run) {
        parts.push_back(request->inputs[i].tensor);
      }
      batched.push_back({run.front()->inputs[i].name, at::cat(parts, 0)});
    }
    absl::StatusOr<std::vector<c10::IValue>> made = signature_.Arguments(std::move(batched));
    if (!made.ok()) return fail_all(made.status());
    arguments = *std::move(made);
  }
  absl::StatusOr<c10::IValue> result = engine_->Run(arguments);
  if (!result.ok()) return fail_all(result.status());
  absl::StatusOr<std::vector<NamedTensor>> outputs = ModelSignature::Outputs(*result);
  if (!outputs.ok()) return fail_all(outputs.status());
  for (const NamedTensor& output : *outputs) {
    if (output.tensor.dim() == 0 || output.tensor.size(0) != rows) {
      return fail_all(absl::FailedPreconditionError(absl::StrCat(
          "model '", name_, "': output '", output.name, "' of a batch of ", rows,
          " rows has shape [", absl::StrJoin(output.tensor.sizes(), ","),
          "], not the batch as dimension 0: set max_batch_size to 0 in its config.json")));
    }
  }
  int64_t offset = 0;
  for (const std::shared_ptr<Request>& request : run) {
    std::vector<NamedTensor> own;
    for (const NamedTensor& output : *outputs) {
      own.push_back({output.name, output.tensor.narrow(0, offset, request->rows)});
    }
    offset += request->rows;
    request->Finish(std::move(own));
  }
}

}  // namespace server
}  // namespace static_runtime
