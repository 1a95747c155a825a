// `sr profile`: where a model's time goes on the static runtime. Per node
// kind, and per fused pointwise group: total time, share, call count and
// kernel kind (measured around every kernel call); the run's phases (binding arguments, memory
// allocation and release, nodes); setup and first-run time; and the runtime's overhead per node,
// measured on chains of no-op nodes (runtime/node_overhead.h), since kernel times measured around
// every call include the measuring itself. One observed run can be written as a Chrome/Perfetto
// trace. With a counting allocator, the allocations of a steady-state run,
// per node with the reason the node allocates. The GFLOP/s of matrix
// products and convolutions, per kind and over the whole run, and of the
// products alone (inside attention kernels, each product is timed), against
// the GFLOP/s of one large matrix product on this machine.
#ifndef STATIC_RUNTIME_RUNTIME_REPORTS_PROFILE_H_
#define STATIC_RUNTIME_RUNTIME_REPORTS_PROFILE_H_

#include <string>
#include <vector>

#include "ATen/core/ivalue.h"
#include "absl/status/statusor.h"
#include "memory/counting_allocator.h"
#include "runtime/node_overhead.h"
#include "runtime/reports/machine.h"
#include "runtime/static_runtime.h"

namespace static_runtime {
namespace reports {

struct NodeKindProfile {
  std::string kind;         // e.g. aten::linear, or "fused group at node 4: add, relu"
  std::string node_kind;    // the JIT node's kind (static_runtime::fused_pointwise for a group)
  std::string kernel_kind;  // out_variant / native / fallback
  double total_us = 0;      // over all profiled runs
  size_t calls = 0;
  double flops = 0;  // over all profiled runs (reports/flops.h; 0 for other kinds)
  // The products' own share: for kernels that time their products
  // (execution/product_clock.h), those products' operations and time; for other
  // kinds with flops, the whole call's.
  double product_flops = 0;
  double product_us = 0;
};

struct NodeProfile {
  std::string position;     // NodeDescription::position
  std::string kind;         // the JIT node's kind
  std::string kernel_kind;  // out_variant / native / fallback
  double total_us = 0;      // over all profiled runs
  // LibTorch CPU allocations the kernel made, and their bytes, over all
  // profiled runs (zero without a counting allocator), and why it allocates
  // (AllocationReason) when it does.
  int64_t allocations = 0;
  int64_t allocated_bytes = 0;
  std::string allocation_reason;
};

// Why a node's kernel allocates on a steady-state run: "unplanned output"
// (an out variant whose output is a graph output or escapes the plan),
// "ATen-internal temporary" (an out variant writing planned memory that
// still allocates inside ATen), "fallback" (the JIT operator allocates its
// results), "native result" (a native kernel makes a new tensor).
std::string AllocationReason(const NodeDescription& node);

struct ProfileReport {
  std::vector<NodeKindProfile> kinds;  // largest total first
  std::vector<NodeProfile> nodes;      // every node called, in the order of first call
  double setup_ms = 0;
  double first_run_us = 0;
  // LibTorch CPU allocations of the first run and their bytes (-1: not
  // counted, without a counting allocator).
  int64_t first_run_allocations = -1;
  int64_t first_run_allocated_bytes = -1;
  // LibTorch CPU allocations of a steady-state run (mean over the unobserved
  // runs), and the part the kernels make (the rest: the runtime's own, e.g.
  // a grown arena); -1 without a counting allocator.
  double steady_run_allocations = -1;
  double node_allocations_per_run = -1;
  double run_us = 0;             // median unobserved run
  double mean_run_us = 0;        // mean unobserved run
  double kernel_us_per_run = 0;  // mean sum of kernel times per observed run
  double calls_per_run = 0;
  NodeOverhead overhead;  // the runtime's own cost per node
  double bind_us = 0, allocate_us = 0, nodes_us = 0, release_us = 0;  // means
  std::string trace_json;  // one run as Chrome trace events
  MemoryStats memory;      // of the runtime that ran
  // What the module's kernel caches held after the runs, and their bound.
  KernelCacheStats kernel_caches;
  size_t shape_plans_per_kernel = 0;
  int runs = 0;
  // Matrix products' and convolutions' operations per run (reports/flops.h),
  // and, when there are any, this machine's fastest float product
  // (reports/flops.h: GFLOP/s and whose kernel).
  double flops_per_run = 0;
  double product_flops_per_run = 0, product_us_per_run = 0;  // NodeKindProfile's, summed
  double peak_gflops = 0, peak_best_gflops = 0;
  std::string peak_kernel;
  MachineKernels machine;  // the BLAS core and oneDNN ISA the run had
};

absl::StatusOr<ProfileReport> Profile(const torch::jit::Module& module, bool is_frozen,
                                      const Options& options,
                                      const std::vector<c10::IValue>& inputs, int runs);
// The same for a module already prepared (or loaded from a package) in
// `setup_ms`.
absl::StatusOr<ProfileReport> Profile(const StaticModule::Ptr& static_module, double setup_ms,
                                      const std::vector<c10::IValue>& inputs, int runs);

// The runs behind Profile, on a prepared module and arguments already bound
// to its schema: a first run, `warmup` more, `runs` unobserved ones, then,
// with `by_node`, `runs` observed by node kind and phase and one traced.
// Fills everything but setup_ms and overhead. Also what the Python
// package's benchmark() reports. With `allocator`, the first run's
// allocations are counted, and those of the later runs, in total and (with
// `by_node`) per node.
absl::StatusOr<ProfileReport> ProfileRuns(const StaticModule::Ptr& module,
                                          const std::vector<c10::IValue>& args, int warmup,
                                          int runs, bool by_node,
                                          const memory::CountingAllocator* allocator = nullptr);

std::string FormatProfile(const ProfileReport& report);

}  // namespace reports
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_RUNTIME_REPORTS_PROFILE_H_
