// `sr bench`: the static runtime and the TorchScript JIT (the frozen module's
// forward, warmed up; it also gives the expected outputs) on the same inputs, interleaved call by
// call (or in turns of several calls), with latency percentiles, throughput, the output check,
// memory and kernel statistics. Several caller threads share one RuntimePool (static runtime) and
// one frozen module (JIT). Optionally also PyTorch's Static Runtime and the static runtime with
// other options (say, serial forks), interleaved.
#ifndef STATIC_RUNTIME_TOOLS_SR_BENCH_H_
#define STATIC_RUNTIME_TOOLS_SR_BENCH_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ATen/core/ivalue.h"
#include "absl/status/statusor.h"
#include "options/options.h"
#include "runtime/reports/machine.h"
#include "runtime/static_runtime.h"
#include "runtime/types.h"
#include "tools/sr/latency.h"
#include "torch/csrc/jit/api/module.h"

namespace static_runtime {
namespace sr {

struct BenchConfig {
  int iters = 200;  // timed calls per side and thread
  int warmup = 20;  // untimed calls per side and thread first
  int threads = 1;  // concurrent callers
  // Calls each side makes in a row before the next side's turn: 1
  // interleaves call by call (each call finds the caches the other sides
  // left); more gives each side warm caches, as a process of its own has
  // (how ONNX Runtime is timed, compare.sh --against=onnxruntime).
  int turn = 1;
  int intra_op_threads = 1;
  Options options;
  bool is_frozen = false;
  // Time the JIT too. Without, it only gives the expected outputs, and the
  // other sides run back to back (no JIT run between them cools the caches).
  bool time_jit = true;
  // Also time PyTorch's own Static Runtime (in this process, interleaved).
  bool against_pytorch_sr = false;
  // Also time the static runtime with these options (in this process,
  // interleaved), called `other_name` in the report.
  std::optional<Options> other_options;
  std::string other_name;
  // Called with the fraction done (0..1) while timing; may be empty.
  std::function<void(double)> progress;
  // Our side, already loaded (from a compiled package) in `prebuilt_ms`;
  // null: prepared from the module with `options`.
  StaticModule::Ptr prebuilt;
  double prebuilt_ms = 0;
};

struct BenchReport {
  Latency static_runtime;
  // With time_jit: the JIT, and static median / JIT median.
  std::optional<Latency> jit;
  double ratio = 0;
  // With against_pytorch_sr: PyTorch's Static Runtime, and static median /
  // PyTorch SR median.
  std::optional<Latency> pytorch_sr;
  double ratio_to_pytorch_sr = 0;
  // With other_options: the static runtime with them, and static median /
  // its median.
  std::optional<Latency> other_static;
  double ratio_to_other_static = 0;
  std::string other_name;
  double max_abs_diff = 0;  // over every tensor of the outputs
  KernelCounts kernels;
  MemoryStats memory;
  double setup_ms = 0;  // preparing the StaticModule
  int iters = 0;
  int threads = 0;
  int turn = 1;
  reports::MachineKernels machine;  // the BLAS core and oneDNN ISA of the run
};

absl::StatusOr<BenchReport> RunBench(const torch::jit::Module& module,
                                     const std::vector<c10::IValue>& inputs,
                                     const BenchConfig& config);

// Human-readable, side by side.
std::string FormatReport(const BenchReport& report);
// Machine-readable (schema in the README).
std::string ReportJson(const BenchReport& report, const std::string& model);

}  // namespace sr
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_TOOLS_SR_BENCH_H_
