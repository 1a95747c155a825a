// `sr load`: how long a model takes to become ready to run, three ways,
// interleaved in one process: prepared from its `.pt` file (loading,
// freezing, the passes, binding and a run on the sample inputs for the
// memory plan), loaded from a compiled package made for the same inputs, and
// through the model cache (a hit). Then the first run of a module loaded
// from the package: its latency and LibTorch allocations.
#ifndef STATIC_RUNTIME_TOOLS_SR_LOAD_BENCH_H_
#define STATIC_RUNTIME_TOOLS_SR_LOAD_BENCH_H_

#include <cstdint>
#include <string>
#include <vector>

#include "ATen/core/ivalue.h"
#include "absl/status/statusor.h"
#include "options/options.h"

namespace static_runtime {
namespace sr {

struct LoadReport {
  int rounds = 0;
  // Medians over the rounds, milliseconds.
  double prepare_ms = 0;    // StaticModule::FromFile, no cache
  double package_ms = 0;    // StaticModule::FromPackage
  double cache_hit_ms = 0;  // StaticModule::FromFile with a cache holding it
  uint64_t package_bytes = 0;
  double first_run_ms = 0;  // of a module just loaded from the package
  int64_t first_run_allocations = 0;
  int64_t first_run_allocated_bytes = 0;
};

// The package and the cache go to a fresh directory under `scratch_dir`,
// removed afterwards. With `packed_weights`, the package holds the
// pre-packed weights (StaticModule::SavePackage).
absl::StatusOr<LoadReport> MeasureLoad(const std::string& model_path, const Options& options,
                                       const std::vector<c10::IValue>& sample_inputs, int rounds,
                                       const std::string& scratch_dir, bool packed_weights = false);

std::string FormatLoadReport(const LoadReport& report);

}  // namespace sr
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_TOOLS_SR_LOAD_BENCH_H_
