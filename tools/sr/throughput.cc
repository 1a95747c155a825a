#include "tools/sr/throughput.h"

#include <sys/resource.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>
#include <utility>

#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "errors/status_macros.h"
#include "runtime/pool.h"

namespace static_runtime {
namespace sr {
namespace {

// The name of the threads that run forked calls (docs/running.md).
constexpr char kTaskWorkerName[] = "SRTaskWorker";

// The process's user + system CPU time so far.
absl::Duration ProcessCpuTime() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return absl::DurationFromTimeval(usage.ru_utime) + absl::DurationFromTimeval(usage.ru_stime);
}

// The CPU time so far of this process's threads named `name` (Linux:
// /proc/self/task/*/comm, and schedstat's time on a CPU, in nanoseconds).
absl::Duration ThreadsCpuTime(absl::string_view name) {
  absl::Duration total;
  std::error_code error;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", error)) {
    std::ifstream comm(task.path() / "comm");
    std::string thread_name;
    if (!std::getline(comm, thread_name) || thread_name != name) continue;
    std::ifstream schedstat(task.path() / "schedstat");
    int64_t on_cpu_ns = 0;
    if (schedstat >> on_cpu_ns) total += absl::Nanoseconds(on_cpu_ns);
  }
  return total;
}

}  // namespace

absl::StatusOr<ThroughputReport> RunThroughput(const StaticModule::Ptr& module,
                                               const std::vector<c10::IValue>& args,
                                               const ThroughputConfig& config) {
  if (config.threads < 1 || !(config.seconds > 0) || config.warmup < 0 ||
      !(config.calls_per_second >= 0)) {
    return absl::InvalidArgumentError(
        "throughput needs --threads >= 1, --seconds > 0, --warmup >= 0 and --rate >= 0");
  }
  RuntimePool pool(module, config.threads);
  absl::Mutex mutex;
  absl::Status failure;
  std::vector<double> latencies_us;
  std::atomic<bool> failed{false};

  // Each caller passes its own copy of the inputs, bound to the schema (as
  // `sr bench` does: a loosely typed container read from a torch.save file
  // would be retyped on every call, which a server's typed requests are
  // not), as separate requests bring their own tensors (one shared set would
  // have the callers' cores contend for its reference counts on every call).
  ASSIGN_OR_RETURN(const std::vector<c10::IValue> bound, module->Bind(args, {}));
  std::vector<std::vector<c10::IValue>> caller_args(config.threads);
  for (std::vector<c10::IValue>& copy : caller_args) {
    for (const c10::IValue& arg : bound) copy.push_back(arg.deepcopy());
  }

  // Warm-up: every caller's runtime is created and planned before timing.
  auto call = [&](const std::vector<c10::IValue>& inputs, std::vector<double>* latencies) {
    const absl::Time start = absl::Now();
    absl::StatusOr<c10::IValue> result = pool.Run(inputs);
    const absl::Duration latency = absl::Now() - start;
    if (!result.ok()) {
      absl::MutexLock lock(&mutex);
      if (failure.ok()) failure = result.status();
      failed = true;
      return;
    }
    if (latencies != nullptr) latencies->push_back(absl::ToDoubleMicroseconds(latency));
  };
  {
    std::vector<std::thread> callers;
    for (int t = 0; t < config.threads; ++t) {
      callers.emplace_back([&, t] {
        for (int i = 0; i < config.warmup && !failed; ++i) call(caller_args[t], nullptr);
      });
    }
    for (std::thread& caller : callers) caller.join();
  }
  if (failed) return failure;

  // Caller t makes calls t, t + threads, ... of the schedule: call k at
  // start + k / rate, or at once when back to back (or late).
  const absl::Duration timed = absl::Seconds(config.seconds);
  const absl::Duration cpu_start = ProcessCpuTime();
  const absl::Duration workers_start = ThreadsCpuTime(kTaskWorkerName);
  const absl::Time start = absl::Now();
  const absl::Time end = start + timed;
  std::vector<std::thread> callers;
  for (int t = 0; t < config.threads; ++t) {
    callers.emplace_back([&, t] {
      std::vector<double> mine;
      for (int64_t k = t; !failed; k += config.threads) {
        if (config.calls_per_second > 0) {
          const absl::Time due = start + absl::Seconds(k / config.calls_per_second);
          if (due >= end) break;
          absl::SleepFor(due - absl::Now());
        } else if (absl::Now() >= end) {
          break;
        }
        call(caller_args[t], &mine);
      }
      absl::MutexLock lock(&mutex);
      latencies_us.insert(latencies_us.end(), mine.begin(), mine.end());
    });
  }
  for (std::thread& caller : callers) caller.join();
  const absl::Duration wall = absl::Now() - start;
  const absl::Duration cpu = ProcessCpuTime() - cpu_start;
  const absl::Duration workers_cpu = ThreadsCpuTime(kTaskWorkerName) - workers_start;
  if (failed) return failure;

  ThroughputReport report;
  report.threads = config.threads;
  report.target_calls_per_second = config.calls_per_second;
  report.calls = static_cast<int64_t>(latencies_us.size());
  report.wall_seconds = absl::ToDoubleSeconds(wall);
  report.cpu_seconds = absl::ToDoubleSeconds(cpu);
  report.task_worker_cpu_seconds = absl::ToDoubleSeconds(workers_cpu);
  for (double latency : latencies_us) report.call_seconds += latency / 1e6;
  report.latency = Summarize(std::move(latencies_us), absl::ToDoubleMicroseconds(wall));
  return report;
}

std::string FormatThroughputReport(const ThroughputReport& r) {
  std::string text =
      absl::StrFormat("%d caller thread(s), %s, %.1f s\n", r.threads,
                      r.target_calls_per_second > 0
                          ? absl::StrFormat("%.0f calls/s requested", r.target_calls_per_second)
                          : std::string("back to back"),
                      r.wall_seconds);
  absl::StrAppendFormat(&text, "calls/s           %.1f (%d calls)\n", r.calls_per_second(),
                        r.calls);
  absl::StrAppendFormat(&text, "latency (us)      median %.1f, p99 %.1f\n", r.latency.median_us,
                        r.latency.p99_us);
  absl::StrAppendFormat(&text, "cpu               %.2f%% of a core; calls in flight %.2f%%\n",
                        100 * r.cores(), 100 * r.in_calls());
  absl::StrAppendFormat(&text, "cpu per call (us) %.1f, of which task workers %.1f\n",
                        r.calls > 0 ? 1e6 * r.cpu_seconds / r.calls : 0,
                        r.calls > 0 ? 1e6 * r.task_worker_cpu_seconds / r.calls : 0);
  absl::StrAppendFormat(&text, "task workers      %.2f%% of a core\n",
                        r.wall_seconds > 0 ? 100 * r.task_worker_cpu_seconds / r.wall_seconds : 0);
  return text;
}

}  // namespace sr
}  // namespace static_runtime
