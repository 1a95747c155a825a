#include "tools/sr/bench.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>
#include <thread>

#include "ATen/ATen.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "errors/exception_message.h"
#include "errors/status_from_exception.h"
#include "errors/status_macros.h"
#include "memory/counting_allocator.h"
#include "passes/freeze.h"
#include "runtime/pool.h"
#include "tools/intra_op_threads.h"
#include "tools/sr/pytorch_sr.h"
#include "verify/reference.h"

namespace static_runtime {
namespace sr {
namespace {

using Clock = std::chrono::steady_clock;

double Micros(Clock::duration duration) {
  return std::chrono::duration<double, std::micro>(duration).count();
}

// The static runtime as a contestant: a runtime of its own, or a pool.
struct StaticSide {
  StaticSide(const StaticModule::Ptr& module, bool own_runtime, int threads)
      : own_runtime(own_runtime), pool(module, threads), single(module) {}
  absl::StatusOr<c10::IValue> Run(const std::vector<c10::IValue>& args) {
    if (!own_runtime) return pool.Run(args);
    single.ReleaseOutputs();
    return single.Run(args);
  }
  const bool own_runtime;
  RuntimePool pool;
  StaticRuntime single;
};

}  // namespace

absl::StatusOr<BenchReport> RunBench(const torch::jit::Module& module,
                                     const std::vector<c10::IValue>& inputs,
                                     const BenchConfig& config) {
  if (config.iters < 1 || config.warmup < 0 || config.threads < 1 || config.intra_op_threads < 1 ||
      config.turn < 1) {
    return absl::InvalidArgumentError(
        "--iters, --threads, --turn and --intra-op-threads must be >= 1, --warmup >= 0");
  }
  SetIntraOpThreads(config.intra_op_threads);
  BenchReport report;
  report.iters = config.iters;
  report.threads = config.threads;
  report.turn = config.turn;
  report.machine = reports::DescribeMachineKernels();

  const auto setup_start = Clock::now();
  ASSIGN_OR_RETURN(
      StaticModule::Ptr static_module,
      config.prebuilt ? config.prebuilt
                      : StaticModule::FromModule(module, config.is_frozen, config.options, inputs));
  report.setup_ms =
      config.prebuilt ? config.prebuilt_ms : Micros(Clock::now() - setup_start) / 1000;
  // Both sides get the arguments bound to the schema (defaults filled,
  // loosely typed containers from torch.save files retyped).
  ASSIGN_OR_RETURN(const std::vector<c10::IValue> args, static_module->Bind(inputs, {}));
  const std::string method = static_module->schema().name();
  report.kernels = static_module->kernel_counts();

  // PyTorch's Static Runtime first makes one call in a child process (a
  // failed run may end the process), before the JIT runs the model: a child
  // forked after the JIT's forks started LibTorch's inter-op pool inherits
  // the pool without its threads, and a forked model's at::launch there
  // waits forever.
  std::unique_ptr<PyTorchStaticRuntime> pytorch_sr;
  if (config.against_pytorch_sr) {
    ASSIGN_OR_RETURN(pytorch_sr,
                     PyTorchStaticRuntime::Create(module, config.is_frozen, config.options));
    RETURN_IF_ERROR(pytorch_sr->SurvivesACall(args, /*limit_seconds=*/300));
  }

  // The JIT baseline: frozen as torch.jit.freeze does (as preparation does).
  torch::jit::Module jit;
  if (config.is_frozen) {
    jit = module.clone();
    jit.eval();
  } else {
    ASSIGN_OR_RETURN(jit, FreezeForInference(module, method));
  }

  // One runtime per thread: with one thread (as PyTorch's Static Runtime is
  // called, through its one cached runtime) or manage_output_tensors (which
  // needs a runtime of its own that releases its outputs) a runtime of its
  // own, else through the pool.
  const bool own_runtime = static_module->options().manage_output_tensors || config.threads <= 1 ||
                           (config.other_options && config.other_options->manage_output_tensors);
  StaticSide ours(static_module, own_runtime, config.threads);
  auto run_static = [&](const std::vector<c10::IValue>& args) { return ours.Run(args); };
  const int threads = own_runtime ? 1 : config.threads;
  std::unique_ptr<StaticSide> other;
  if (config.other_options) {
    ASSIGN_OR_RETURN(
        StaticModule::Ptr other_module,
        StaticModule::FromModule(module, config.is_frozen, *config.other_options, inputs));
    other = std::make_unique<StaticSide>(other_module, own_runtime, config.threads);
    ASSIGN_OR_RETURN(c10::IValue other_result, other->Run(args));
  }

  // Reference outputs and the output check.
  c10::IValue expected;
  try {
    expected = jit.get_method(method)(args);
  } catch (const std::exception& e) {
    return StatusFromException(
        e, "the JIT cannot run the model on these inputs: ", absl::StatusCode::kInvalidArgument);
  }
  ASSIGN_OR_RETURN(c10::IValue actual, run_static(args));
  ASSIGN_OR_RETURN(report.max_abs_diff, reference::MaxAbsDifference(expected, actual));
  actual = c10::IValue();

  // The contestants, called in turn on the same arguments.
  if (pytorch_sr) {
    try {
      // Its outputs are comparable with the JIT's (the difference is not reported).
      RETURN_IF_ERROR(reference::MaxAbsDifference(expected, (*pytorch_sr)(args)).status());
    } catch (const std::exception& e) {
      return StatusFromException(e,
                                 "PyTorch's Static Runtime cannot run the model on these inputs: ",
                                 absl::StatusCode::kInvalidArgument);
    }
  }
  std::vector<std::function<absl::Status()>> contestants = {
      [&]() { return run_static(args).status(); }};
  const size_t jit_index = contestants.size();
  if (config.time_jit) {
    contestants.push_back([&]() {
      jit.get_method(method)(args);
      return absl::OkStatus();
    });
  }
  const size_t pytorch_sr_index = contestants.size();
  if (pytorch_sr) {
    contestants.push_back([&]() {
      (*pytorch_sr)(args);
      return absl::OkStatus();
    });
  }
  const size_t other_index = contestants.size();
  if (other) contestants.push_back([&]() { return other->Run(args).status(); });
  const memory::CountingAllocator& allocator = memory::CountingAllocator::Installed();

  absl::Mutex mutex;
  std::vector<std::vector<double>> samples_us(contestants.size());
  std::vector<double> allocations(contestants.size(), 0);
  std::vector<double> allocated_bytes(contestants.size(), 0);
  std::atomic<int> done{0};
  std::atomic<bool> failed{false};
  std::string failure;
  const int total = threads * config.iters;
  auto worker = [&]() {
    std::vector<std::vector<double>> mine(contestants.size());
    // Call i of every side, in turns of config.turn calls per side.
    const int calls = config.warmup + config.iters;
    for (int first = 0; first < calls && !failed; first += config.turn) {
      const int end_of_turn = std::min(calls, first + config.turn);
      for (size_t c = 0; c < contestants.size(); ++c) {
        for (int i = first; i < end_of_turn; ++i) {
          const size_t count_before = allocator.count();
          const size_t bytes_before = allocator.bytes();
          const auto start = Clock::now();
          absl::Status status;
          try {
            status = contestants[c]();
          } catch (const std::exception& e) {
            status = StatusFromException(e, "", absl::StatusCode::kInternal);
          }
          const auto end = Clock::now();
          if (!status.ok()) {
            absl::MutexLock lock(&mutex);
            failed = true;
            failure = std::string(status.message());
            return;
          }
          if (i < config.warmup) continue;
          mine[c].push_back(Micros(end - start));
          if (threads == 1) {
            allocations[c] += allocator.count() - count_before;
            allocated_bytes[c] += allocator.bytes() - bytes_before;
          }
        }
      }
      const int timed = end_of_turn - std::max(first, config.warmup);
      if (timed <= 0) continue;
      const int finished = done += timed;
      if (config.progress &&
          (finished - timed) / std::max(1, total / 100) != finished / std::max(1, total / 100)) {
        config.progress(static_cast<double>(finished) / total);
      }
    }
    absl::MutexLock lock(&mutex);
    for (size_t c = 0; c < contestants.size(); ++c) {
      samples_us[c].insert(samples_us[c].end(), mine[c].begin(), mine[c].end());
    }
  };
  const auto wall_start = Clock::now();
  // One caller runs on this thread, which set up the sides: OpenMP teams
  // on two threads made libgomp sleep between parallel regions
  // (docs/running.md, "Intra-op threads"; convnext_tiny 7.1-8.8 -> 5.5 ms).
  if (threads == 1) {
    worker();
  } else {
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) workers.emplace_back(worker);
    for (std::thread& w : workers) w.join();
  }
  const double wall_us = Micros(Clock::now() - wall_start);
  if (failed) return absl::InternalError(failure);
  if (config.progress) config.progress(1.0);

  // Throughput per contestant: its share of the interleaved wall time.
  std::vector<double> totals(contestants.size(), 0);
  double all_total = 0;
  for (size_t c = 0; c < contestants.size(); ++c) {
    for (double sample : samples_us[c]) totals[c] += sample;
    all_total += totals[c];
  }
  std::vector<Latency> latencies;
  for (size_t c = 0; c < contestants.size(); ++c) {
    latencies.push_back(Summarize(samples_us[c], wall_us * totals[c] / std::max(1.0, all_total)));
    if (threads == 1) {
      latencies.back().allocations_per_run = allocations[c] / config.iters;
      latencies.back().allocated_bytes_per_run = allocated_bytes[c] / config.iters;
    }
  }
  report.static_runtime = latencies[0];
  auto static_over = [&](const Latency& other) {
    return other.median_us > 0 ? report.static_runtime.median_us / other.median_us : 0;
  };
  if (config.time_jit) {
    report.jit = latencies[jit_index];
    report.ratio = static_over(*report.jit);
  }
  if (pytorch_sr) {
    report.pytorch_sr = latencies[pytorch_sr_index];
    report.ratio_to_pytorch_sr = static_over(*report.pytorch_sr);
  }
  if (other) {
    report.other_static = latencies[other_index];
    report.other_name = config.other_name;
    report.ratio_to_other_static = static_over(*report.other_static);
  }
  if (own_runtime) {
    report.memory = ours.single.memory_stats();
  } else {
    // The pool's runtimes are private: the stats of one more runtime that ran.
    StaticRuntime probe(static_module);
    if (probe.Run(args).ok()) report.memory = probe.memory_stats();
  }
  return report;
}

std::string FormatReport(const BenchReport& r) {
  std::vector<std::pair<const char*, const Latency*>> columns = {{"static", &r.static_runtime}};
  if (r.jit) columns.push_back({"jit", &*r.jit});
  if (r.pytorch_sr) columns.push_back({"pytorch sr", &*r.pytorch_sr});
  if (r.other_static) columns.push_back({"static (other)", &*r.other_static});
  auto row = [&](const char* name, const absl::FormatSpec<double>& format, auto field) {
    std::string line = absl::StrFormat("%-18s", name);
    for (const auto& column : columns) {
      absl::StrAppend(&line,
                      absl::StrFormat(" %14s", absl::StrFormat(format, field(*column.second))));
    }
    return line + "\n";
  };
  std::string text = absl::StrFormat("%-18s", "");
  for (const auto& column : columns) absl::StrAppend(&text, absl::StrFormat(" %14s", column.first));
  text += "\n";
  text += row("median (us)", "%.1f", [](const Latency& l) { return l.median_us; });
  text += row("p90 (us)", "%.1f", [](const Latency& l) { return l.p90_us; });
  text += row("p99 (us)", "%.1f", [](const Latency& l) { return l.p99_us; });
  text += row("throughput (/s)", "%.0f", [](const Latency& l) { return l.throughput_per_s; });
  if (r.static_runtime.allocations_per_run >= 0) {
    text += row("allocations/run", "%.1f", [](const Latency& l) { return l.allocations_per_run; });
    text +=
        row("alloc bytes/run", "%.0f", [](const Latency& l) { return l.allocated_bytes_per_run; });
  }
  if (r.jit) absl::StrAppendFormat(&text, "ratio (static / jit, median): %.3f\n", r.ratio);
  if (r.pytorch_sr) {
    if (r.jit) {
      absl::StrAppendFormat(&text, "ratio (pytorch sr / jit, median): %.3f\n",
                            r.jit->median_us > 0 ? r.pytorch_sr->median_us / r.jit->median_us : 0);
    }
    absl::StrAppendFormat(&text, "ratio (static / pytorch sr, median): %.3f\n",
                          r.ratio_to_pytorch_sr);
  }
  if (r.other_static) {
    absl::StrAppendFormat(&text, "ratio (static / static with %s, median): %.3f\n", r.other_name,
                          r.ratio_to_other_static);
  }
  absl::StrAppendFormat(&text, "output check: max |static - jit| = %.3g\n", r.max_abs_diff);
  absl::StrAppend(&text, "matrix kernels: ", reports::FormatMachineKernels(r.machine), "\n");
  // ATen's products are the JIT's and PyTorch's Static Runtime's.
  const std::string warning = reports::SlowBlasWarning(r.machine);
  if ((r.jit || r.pytorch_sr) && !warning.empty()) absl::StrAppend(&text, warning, "\n");
  const ArenaStats& m = r.memory.intermediates;
  absl::StrAppendFormat(
      &text,
      "memory: %d managed tensors (%d reusing memory), %d unmanaged values\n"
      "        arena: greedy by size %d B, storage groups %d B, lower bound %d B\n",
      m.managed_tensors, m.reused_tensors, r.memory.unmanaged_values, m.greedy_by_size_bytes,
      m.storage_groups_bytes, m.lower_bound_bytes);
  if (r.memory.output_tensors > 0) {
    absl::StrAppendFormat(&text, "        output buffer: %d tensors, %d B\n",
                          r.memory.output_tensors, r.memory.output_buffer_bytes);
  }
  absl::StrAppendFormat(&text, "nodes: %d out variant, %d native, %d fallback\n",
                        r.kernels.out_variant, r.kernels.native, r.kernels.fallback);
  absl::StrAppendFormat(&text, "setup: %.1f ms; %d iterations x %d threads, in turns of %d calls\n",
                        r.setup_ms, r.iters, r.threads, r.turn);
  return text;
}

namespace {

std::string JsonString(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += absl::StrFormat("\\u%04x", c);
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string LatencyJson(const Latency& l) {
  std::string json = absl::StrFormat(
      "{\"median_us\": %.3f, \"p90_us\": %.3f, \"p99_us\": %.3f, \"mean_us\": %.3f, "
      "\"throughput_per_s\": %.3f",
      l.median_us, l.p90_us, l.p99_us, l.mean_us, l.throughput_per_s);
  if (l.allocations_per_run >= 0) {
    absl::StrAppendFormat(&json,
                          ", \"allocations_per_run\": %.3f, \"allocated_bytes_per_run\": %.1f",
                          l.allocations_per_run, l.allocated_bytes_per_run);
  }
  return json + "}";
}

}  // namespace

std::string ReportJson(const BenchReport& r, const std::string& model) {
  const ArenaStats& m = r.memory.intermediates;
  return absl::StrCat(
      "{\n  \"model\": ", JsonString(model), ",\n  \"iters\": ", r.iters,
      ",\n  \"threads\": ", r.threads, ",\n  \"turn\": ", r.turn,
      ",\n  \"static_runtime\": ", LatencyJson(r.static_runtime),
      r.jit ? absl::StrCat(",\n  \"jit\": ", LatencyJson(*r.jit),
                           ",\n  \"ratio\": ", absl::StrFormat("%.4f", r.ratio))
            : std::string(),
      r.pytorch_sr ? absl::StrCat(",\n  \"pytorch_sr\": ", LatencyJson(*r.pytorch_sr),
                                  ",\n  \"ratio_to_pytorch_sr\": ",
                                  absl::StrFormat("%.4f", r.ratio_to_pytorch_sr))
                   : std::string(),
      r.other_static ? absl::StrCat(",\n  \"other_static\": ", LatencyJson(*r.other_static),
                                    ",\n  \"other_options\": ", JsonString(r.other_name),
                                    ",\n  \"ratio_to_other_static\": ",
                                    absl::StrFormat("%.4f", r.ratio_to_other_static))
                     : std::string(),
      ",\n  \"max_abs_diff\": ", absl::StrFormat("%.6g", r.max_abs_diff),
      ",\n  \"openblas_core\": ", JsonString(r.machine.openblas_core),
      ",\n  \"best_openblas_core\": ", JsonString(r.machine.best_openblas_core),
      ",\n  \"onednn_isa\": ", JsonString(r.machine.onednn_isa),
      ",\n  \"setup_ms\": ", absl::StrFormat("%.3f", r.setup_ms),
      ",\n  \"nodes\": {\"out_variant\": ", r.kernels.out_variant,
      ", \"native\": ", r.kernels.native, ", \"fallback\": ", r.kernels.fallback,
      "},\n  \"memory\": {\"managed_tensors\": ", m.managed_tensors,
      ", \"reused_tensors\": ", m.reused_tensors,
      ", \"unmanaged_values\": ", r.memory.unmanaged_values,
      ", \"greedy_by_size_bytes\": ", m.greedy_by_size_bytes,
      ", \"storage_groups_bytes\": ", m.storage_groups_bytes,
      ", \"lower_bound_bytes\": ", m.lower_bound_bytes,
      ", \"output_tensors\": ", r.memory.output_tensors,
      ", \"output_buffer_bytes\": ", r.memory.output_buffer_bytes, "}\n}\n");
}

}  // namespace sr
}  // namespace static_runtime
