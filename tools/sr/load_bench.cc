#include "tools/sr/load_bench.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "errors/status_macros.h"
#include "memory/counting_allocator.h"
#include "runtime/model_cache.h"
#include "runtime/package.h"
#include "runtime/static_module.h"
#include "runtime/static_runtime.h"

namespace static_runtime {
namespace sr {
namespace {

namespace fs = std::filesystem;

double Median(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

// Milliseconds `load` takes; its module is destroyed outside the timing.
absl::StatusOr<double> TimeLoad(const std::function<absl::StatusOr<StaticModule::Ptr>()>& load) {
  const absl::Time start = absl::Now();
  absl::StatusOr<StaticModule::Ptr> module = load();
  const double ms = absl::ToDoubleMilliseconds(absl::Now() - start);
  RETURN_IF_ERROR(module.status());
  return ms;
}

}  // namespace

absl::StatusOr<LoadReport> MeasureLoad(const std::string& model_path, const Options& options,
                                       const std::vector<c10::IValue>& sample_inputs, int rounds,
                                       const std::string& scratch_dir, bool packed_weights) {
  if (rounds < 1) return absl::InvalidArgumentError("--rounds must be >= 1");
  const fs::path dir = fs::path(scratch_dir) / absl::StrCat("sr_load_", getpid());
  std::error_code error;
  fs::remove_all(dir, error);
  if (!fs::create_directories(dir, error)) {
    return absl::PermissionDeniedError(absl::StrCat("cannot create ", dir.string()));
  }
  const std::string package = (dir / "model.srpkg").string();
  const ModelCache cache((dir / "cache").string());

  LoadReport report;
  report.rounds = rounds;
  absl::Status status = [&]() -> absl::Status {
    ASSIGN_OR_RETURN(StaticModule::Ptr prepared,
                     StaticModule::FromFile(model_path, options, sample_inputs));
    RETURN_IF_ERROR(SavePackage(*prepared, package, {model_path, ""}, packed_weights));
    report.package_bytes = fs::file_size(package);
    // The cache's first load is a miss that fills it.
    ASSIGN_OR_RETURN(StaticModule::Ptr filled, cache.Load(model_path, options, sample_inputs));

    std::vector<double> prepare, from_package, cache_hit;
    for (int round = 0; round < rounds; ++round) {
      for (auto [samples, load] : std::vector<
               std::pair<std::vector<double>*, std::function<absl::StatusOr<StaticModule::Ptr>()>>>{
               {&prepare,
                [&] { return StaticModule::FromFile(model_path, options, sample_inputs); }},
               {&from_package, [&] { return LoadPackage(package); }},
               {&cache_hit, [&] { return cache.Load(model_path, options, sample_inputs); }},
           }) {
        ASSIGN_OR_RETURN(double ms, TimeLoad(load));
        samples->push_back(ms);
      }
    }
    report.prepare_ms = Median(prepare);
    report.package_ms = Median(from_package);
    report.cache_hit_ms = Median(cache_hit);

    ASSIGN_OR_RETURN(StaticModule::Ptr loaded, LoadPackage(package));
    ASSIGN_OR_RETURN(std::vector<c10::IValue> args, loaded->Bind(sample_inputs, {}));
    StaticRuntime runtime(loaded);
    const memory::CountingAllocator& allocator = memory::CountingAllocator::Installed();
    const size_t count_before = allocator.count();
    const size_t bytes_before = allocator.bytes();
    const absl::Time start = absl::Now();
    absl::StatusOr<c10::IValue> result = runtime.Run(args);
    report.first_run_ms = absl::ToDoubleMilliseconds(absl::Now() - start);
    RETURN_IF_ERROR(result.status());
    report.first_run_allocations = allocator.count() - count_before;
    report.first_run_allocated_bytes = allocator.bytes() - bytes_before;
    return absl::OkStatus();
  }();
  fs::remove_all(dir, error);
  RETURN_IF_ERROR(status);
  return report;
}

std::string FormatLoadReport(const LoadReport& r) {
  return absl::StrFormat(
      "ready to run (median of %d, interleaved):\n"
      "  prepared from the .pt     %9.1f ms\n"
      "  from a compiled package   %9.1f ms  (%.1fx faster)\n"
      "  through the cache (hit)   %9.1f ms  (%.1fx faster)\n"
      "package: %.1f MB\n"
      "first run from the package: %.2f ms, %d allocations (%d B)\n",
      r.rounds, r.prepare_ms, r.package_ms, r.prepare_ms / r.package_ms, r.cache_hit_ms,
      r.prepare_ms / r.cache_hit_ms, r.package_bytes / 1e6, r.first_run_ms, r.first_run_allocations,
      r.first_run_allocated_bytes);
}

}  // namespace sr
}  // namespace static_runtime
