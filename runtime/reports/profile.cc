#include "runtime/reports/profile.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include "ATen/Parallel.h"
#include "absl/cleanup/cleanup.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "errors/status_macros.h"
#include "execution/product_clock.h"
#include "runtime/reports/explain.h"
#include "runtime/reports/flops.h"

namespace static_runtime {
namespace reports {
namespace {

using Clock = std::chrono::steady_clock;

double Micros(Clock::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }

// Times every kernel call and counts its allocations (with an allocator);
// optionally records trace events.
class Timer : public NodeObserver {
 public:
  explicit Timer(const memory::CountingAllocator* allocator) : allocator_(allocator) {}

  void Before(const NodeDescription&, const NodeIO&) override {
    if (allocator_ != nullptr) {
      count_before_ = allocator_->count();
      bytes_before_ = allocator_->bytes();
    }
    ops::TakeProductWork();  // what ran between kernels is no kernel's
    start_ = Clock::now();
  }
  void After(const NodeDescription& node, const NodeIO& values) override {
    const auto end = Clock::now();
    const ops::ProductWork products = ops::TakeProductWork();
    const int64_t allocations =
        allocator_ != nullptr ? static_cast<int64_t>(allocator_->count() - count_before_) : 0;
    const int64_t bytes =
        allocator_ != nullptr ? static_cast<int64_t>(allocator_->bytes() - bytes_before_) : 0;
    const double us = Micros(end - start_);
    const char* kind = node.node->kind().toQualString();
    // A fused group is one entry of its own.
    const bool group = !node.fused_ops.empty();
    NodeKindProfile& entry =
        group ? by_kind_[absl::StrCat("group ", node.position)] : by_kind_[kind];
    if (entry.calls == 0) {
      entry.kind =
          group ? absl::StrCat("fused group at node ", node.position, ": ", node.fused_ops) : kind;
      entry.node_kind = kind;
      entry.kernel_kind = NodeKindName(node.kind);
    }
    entry.total_us += us;
    ++entry.calls;
    const double flops = NodeFlops(*node.node, values);
    entry.flops += flops;
    flops_ += flops;
    if (products.flops > 0) {
      entry.product_flops += products.flops;
      entry.product_us += products.seconds * 1e6;
    } else if (flops > 0) {
      entry.product_flops += flops;
      entry.product_us += us;
    }
    auto [position, added] = node_index_.try_emplace(node.position, nodes_.size());
    if (added) {
      NodeProfile profile;
      profile.position = node.position;
      profile.kind = kind;
      profile.kernel_kind = NodeKindName(node.kind);
      profile.allocation_reason = AllocationReason(node);
      nodes_.push_back(std::move(profile));
    }
    NodeProfile& profile = nodes_[position->second];
    profile.total_us += us;
    profile.allocations += allocations;
    profile.allocated_bytes += bytes;
    allocations_ += allocations;
    kernel_us_ += us;
    ++calls_;
    if (trace_) {
      absl::StrAppend(&events_, events_.empty() ? "" : ",\n",
                      absl::StrFormat("{\"name\": \"%s\", \"cat\": \"%s\", \"ph\": \"X\", "
                                      "\"ts\": %.3f, \"dur\": %.3f, \"pid\": 0, \"tid\": 0, "
                                      "\"args\": {\"node\": \"%s\"}}",
                                      entry.kind, entry.kernel_kind, Micros(start_ - origin_), us,
                                      node.position));
    }
  }
  void Phase(const char* name, double us) override { phases_[name] += us; }

  void StartTrace() {
    trace_ = true;
    origin_ = Clock::now();
  }
  void StopTrace() { trace_ = false; }

  absl::flat_hash_map<std::string, NodeKindProfile> by_kind_;
  std::vector<NodeProfile> nodes_;  // in the order of their first call
  absl::flat_hash_map<std::string, size_t> node_index_;
  absl::flat_hash_map<std::string, double> phases_;
  double kernel_us_ = 0;
  size_t calls_ = 0;
  int64_t allocations_ = 0;
  double flops_ = 0;
  std::string events_;

 private:
  const memory::CountingAllocator* allocator_;
  size_t count_before_ = 0;
  size_t bytes_before_ = 0;
  bool trace_ = false;
  Clock::time_point start_;
  Clock::time_point origin_;
};

bool IsTensor(const torch::jit::Value* value) {
  return value->type()->kind() == c10::TypeKind::TensorType;
}

}  // namespace

std::string AllocationReason(const NodeDescription& node) {
  switch (node.kind) {
    case NodeKind::kFallback:
      return "fallback: the JIT operator allocates its results";
    case NodeKind::kOutVariant: {
      const auto& outputs = node.node->outputs();
      const size_t tensors = std::count_if(outputs.begin(), outputs.end(), IsTensor);
      return node.planned_outputs < tensors
                 ? "unplanned output: a graph output or a value that escapes the plan"
                 : "ATen-internal temporary (the output is planned)";
    }
    default:
      return "native result: the kernel makes a new tensor";
  }
}

absl::StatusOr<ProfileReport> ProfileRuns(const StaticModule::Ptr& module,
                                          const std::vector<c10::IValue>& args, int warmup,
                                          int runs, bool by_node,
                                          const memory::CountingAllocator* allocator) {
  if (runs < 1 || warmup < 0) {
    return absl::InvalidArgumentError("runs must be >= 1 and warm-up runs >= 0");
  }
  ProfileReport report;
  report.runs = runs;
  StaticRuntime runtime(module);
  auto run = [&](NodeObserver* observer) -> absl::Status {
    absl::StatusOr<c10::IValue> result =
        observer ? runtime.RunObserved(args, {}, *observer) : runtime.Run(args);
    runtime.ReleaseOutputs();
    return result.status();
  };
  const size_t count_before = allocator ? allocator->count() : 0;
  const size_t bytes_before = allocator ? allocator->bytes() : 0;
  const auto first_start = Clock::now();
  absl::Status status = run(nullptr);
  RETURN_IF_ERROR(status);
  report.first_run_us = Micros(Clock::now() - first_start);
  if (allocator) {
    report.first_run_allocations = allocator->count() - count_before;
    report.first_run_allocated_bytes = allocator->bytes() - bytes_before;
  }
  for (int i = 0; i < warmup; ++i) {
    status = run(nullptr);
    RETURN_IF_ERROR(status);
  }

  std::vector<double> plain;
  const size_t steady_before = allocator ? allocator->count() : 0;
  for (int i = 0; i < runs; ++i) {
    const auto start = Clock::now();
    status = run(nullptr);
    RETURN_IF_ERROR(status);
    plain.push_back(Micros(Clock::now() - start));
  }
  if (allocator) {
    report.steady_run_allocations = static_cast<double>(allocator->count() - steady_before) / runs;
  }
  for (double us : plain) report.mean_run_us += us / runs;
  std::sort(plain.begin(), plain.end());
  report.run_us = plain[plain.size() / 2];
  report.memory = runtime.memory_stats();
  report.kernel_caches = module->KernelCaches();
  report.shape_plans_per_kernel = module->options().shape_plans_per_kernel;
  if (!by_node) return report;

  Timer timer(allocator);
  // The machine's limit is sampled between the observed runs (flops.h), once
  // they show products: after up to kLimitSamples of them, spread evenly,
  // and at least 10 times in all.
  constexpr int64_t kLimitSamples = 50;
  std::optional<PeakProductMeter> peak;
  int samples = 0;
  auto sample = [&] {
    if (!peak) peak.emplace();
    peak->Sample();
    ++samples;
  };
  {
    ops::CountProducts(true);
    const absl::Cleanup stop_counting = [] { ops::CountProducts(false); };
    for (int64_t i = 0; i < runs; ++i) {
      status = run(&timer);
      RETURN_IF_ERROR(status);
      if (timer.flops_ > 0 && (i + 1) * kLimitSamples / runs != i * kLimitSamples / runs) {
        sample();
      }
    }
  }
  while (timer.flops_ > 0 && samples < 10) sample();
  Timer tracer(nullptr);
  tracer.StartTrace();
  status = run(&tracer);
  RETURN_IF_ERROR(status);
  report.trace_json = absl::StrCat("{\"traceEvents\": [\n", tracer.events_, "\n]}\n");

  for (auto& [kind, entry] : timer.by_kind_) report.kinds.push_back(entry);
  std::sort(
      report.kinds.begin(), report.kinds.end(),
      [](const NodeKindProfile& a, const NodeKindProfile& b) { return a.total_us > b.total_us; });
  report.nodes = timer.nodes_;
  report.kernel_us_per_run = timer.kernel_us_ / runs;
  report.calls_per_run = static_cast<double>(timer.calls_) / runs;
  if (allocator) report.node_allocations_per_run = static_cast<double>(timer.allocations_) / runs;
  report.bind_us = timer.phases_["bind"] / runs;
  report.allocate_us = timer.phases_["allocate"] / runs;
  report.nodes_us = timer.phases_["nodes"] / runs;
  report.release_us = timer.phases_["release"] / runs;
  report.flops_per_run = timer.flops_ / runs;
  for (const NodeKindProfile& entry : report.kinds) {
    report.product_flops_per_run += entry.product_flops / runs;
    report.product_us_per_run += entry.product_us / runs;
  }
  report.machine = DescribeMachineKernels();
  if (peak) {
    const PeakProduct limit = peak->Result();
    report.peak_gflops = limit.gflops;
    report.peak_best_gflops = limit.best_gflops;
    report.peak_kernel = limit.kernel;
  }
  return report;
}

absl::StatusOr<ProfileReport> Profile(const torch::jit::Module& module, bool is_frozen,
                                      const Options& options,
                                      const std::vector<c10::IValue>& inputs, int runs) {
  const auto setup_start = Clock::now();
  ASSIGN_OR_RETURN(StaticModule::Ptr static_module,
                   StaticModule::FromModule(module, is_frozen, options));
  return Profile(static_module, Micros(Clock::now() - setup_start) / 1000, inputs, runs);
}

absl::StatusOr<ProfileReport> Profile(const StaticModule::Ptr& static_module, double setup_ms,
                                      const std::vector<c10::IValue>& inputs, int runs) {
  if (runs < 1) return absl::InvalidArgumentError("--iters must be >= 1");
  ASSIGN_OR_RETURN(std::vector<c10::IValue> bound, static_module->Bind(inputs, {}));

  ASSIGN_OR_RETURN(ProfileReport report,
                   ProfileRuns(static_module, bound, /*warmup=*/0, runs, /*by_node=*/true,
                               &memory::CountingAllocator::Installed()));
  report.setup_ms = setup_ms;
  ASSIGN_OR_RETURN(report.overhead, MeasureNodeOverhead());
  return report;
}

std::string FormatProfile(const ProfileReport& r) {
  std::string text = absl::StrFormat("%-40s %12s %7s %8s  %s\n", "node kind", "time (us)", "share",
                                     "calls", "kernel");
  double total = 0;
  for (const NodeKindProfile& entry : r.kinds) total += entry.total_us;
  for (const NodeKindProfile& entry : r.kinds) {
    absl::StrAppendFormat(&text, "%-40s %12.2f %6.1f%% %8.1f  %s\n", entry.kind,
                          entry.total_us / r.runs, 100 * entry.total_us / std::max(total, 1e-9),
                          static_cast<double>(entry.calls) / r.runs, entry.kernel_kind);
  }
  if (r.flops_per_run > 0) {
    absl::StrAppendFormat(
        &text,
        "\nmatrix products and convolutions: %.4f GFLOP per run (as the direct algorithm "
        "counts them; Winograd convolutions do fewer), %.1f GFLOP/s over the median run (%.0f%% "
        "of %.1f GFLOP/s, the limit: the fastest 512x512 float product here, sampled between the "
        "runs, %s on %d thread(s); its best call %.1f)\n",
        r.flops_per_run / 1e9, r.flops_per_run / r.run_us / 1e3,
        100 * r.flops_per_run / r.run_us / 1e3 / r.peak_gflops, r.peak_gflops, r.peak_kernel,
        at::get_num_threads(), r.peak_best_gflops);
    const auto of_peak = [&](double gflops) { return 100 * gflops / r.peak_gflops; };
    if (r.product_us_per_run > 0) {
      const double gflops = r.product_flops_per_run / r.product_us_per_run / 1e3;
      absl::StrAppendFormat(&text,
                            "the products alone: %.1f GFLOP/s (%.0f%% of the limit; inside "
                            "attention kernels each product timed, else the whole call)\n",
                            gflops, of_peak(gflops));
    }
    // The run's floor on this machine: its products at the limit, the rest
    // free.
    const double floor_us = r.flops_per_run / r.peak_gflops / 1e3;
    absl::StrAppendFormat(&text,
                          "at the limit these products alone would take %.1f us a run (%.0f%% of "
                          "the median run)\n",
                          floor_us, 100 * floor_us / r.run_us);
    for (const NodeKindProfile& entry : r.kinds) {
      if (entry.flops <= 0 || entry.total_us <= 0) continue;
      const double gflops = entry.flops / entry.total_us / 1e3;
      const double alone = entry.product_us > 0 ? entry.product_flops / entry.product_us / 1e3 : 0;
      absl::StrAppendFormat(&text,
                            "  %-44s %7.1f GFLOP/s (%3.0f%%), products alone %7.1f GFLOP/s "
                            "(%3.0f%%)\n",
                            entry.kind, gflops, of_peak(gflops), alone, of_peak(alone));
    }
  }
  absl::StrAppend(&text, "\nmatrix kernels: ", FormatMachineKernels(r.machine), "\n");
  const std::string warning = SlowBlasWarning(r.machine);
  if (!warning.empty()) absl::StrAppend(&text, warning, "\n");
  absl::StrAppendFormat(&text,
                        "per run (mean of %d): bind %.2f us, allocate %.2f us, nodes %.2f us, "
                        "release %.2f us\n",
                        r.runs, r.bind_us, r.allocate_us, r.nodes_us, r.release_us);
  absl::StrAppendFormat(&text,
                        "run (median, unobserved): %.2f us; kernels: %.2f us in %.1f calls\n"
                        "runtime overhead per node: %.1f ns (no-op node chains: %.1f ns per "
                        "node, of which the kernel %.1f ns)\n"
                        "setup: %.2f ms; first run: %.2f us",
                        r.run_us, r.kernel_us_per_run, r.calls_per_run, r.overhead.per_node_ns,
                        r.overhead.slope_ns, r.overhead.kernel_ns, r.setup_ms, r.first_run_us);
  if (r.first_run_allocations >= 0) {
    absl::StrAppendFormat(&text, ", %d allocations (%d B)", r.first_run_allocations,
                          r.first_run_allocated_bytes);
  }
  absl::StrAppend(&text, "\n", FormatKernelCaches(r.kernel_caches, r.shape_plans_per_kernel), "\n");
  if (r.steady_run_allocations >= 0) {
    absl::StrAppendFormat(&text,
                          "\nallocations per steady-state run: %.1f (kernels %.1f, the runtime "
                          "%.1f)\n",
                          r.steady_run_allocations, r.node_allocations_per_run,
                          std::max(0.0, r.steady_run_allocations - r.node_allocations_per_run));
    if (r.memory.output_slab_tensors > 0) {
      absl::StrAppendFormat(&text,
                            "the runtime's: an output slab (%d B) for the %d tensors a run hands "
                            "out, new for a run only while the caller holds tensors of the "
                            "previous one\n",
                            r.memory.output_slab_bytes, r.memory.output_slab_tensors);
    }
    bool header = false;
    for (const NodeProfile& node : r.nodes) {
      if (node.allocations == 0) continue;
      if (!header) {
        absl::StrAppendFormat(&text, "%-8s %-36s %8s %12s  %s\n", "node", "kind", "allocs", "bytes",
                              "why");
        header = true;
      }
      absl::StrAppendFormat(&text, "%-8s %-36s %8.1f %12.0f  %s\n", node.position, node.kind,
                            static_cast<double>(node.allocations) / r.runs,
                            static_cast<double>(node.allocated_bytes) / r.runs,
                            node.allocation_reason);
    }
  }
  return text;
}

}  // namespace reports
}  // namespace static_runtime
