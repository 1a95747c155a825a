// The value types of the public API (part of //runtime:static_runtime):
// keyword arguments, how a launcher runs tasks, what a module's nodes were
// bound to, what memory planning does, and the observer a profiling run
// reports every node to. Plain data and one interface; nothing here refers to
// the runtime's internal structures, which may change from release to
// release.
#ifndef STATIC_RUNTIME_RUNTIME_TYPES_H_
#define STATIC_RUNTIME_RUNTIME_TYPES_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ATen/core/ivalue.h"
#include "absl/types/span.h"
#include "execution/kernel_caches.h"
#include "memory/arena_stats.h"
#include "ops/core/node_io.h"
#include "ops/core/node_kind.h"
#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

// Example arguments of forward given when a module is prepared: one set of
// them (a vector of forward's arguments, as PyTorch's Static Runtime
// takes), or several (Sets). The graph's shape-dependent preparation sees
// the first set; every set runs once before the module is returned, so that
// the memory plan holds the largest size each tensor took and the kernels
// have prepared each set's shapes (plans, weight layouts).
class SampleInputs {
 public:
  SampleInputs() = default;
  SampleInputs(std::vector<c10::IValue> arguments)  // NOLINT: implicit, one set
      : sets_{std::move(arguments)} {
    if (sets_[0].empty()) sets_.clear();
  }
  SampleInputs(std::initializer_list<c10::IValue> arguments)  // NOLINT: implicit, one set
      : SampleInputs(std::vector<c10::IValue>(arguments)) {}
  static SampleInputs Sets(std::vector<std::vector<c10::IValue>> sets) {
    SampleInputs inputs;
    inputs.sets_ = std::move(sets);
    return inputs;
  }

  bool empty() const { return sets_.empty(); }
  const std::vector<std::vector<c10::IValue>>& sets() const { return sets_; }
  // The first set (empty when there is none).
  const std::vector<c10::IValue>& first() const {
    static const std::vector<c10::IValue> kNone;
    return sets_.empty() ? kNone : sets_[0];
  }

 private:
  std::vector<std::vector<c10::IValue>> sets_;
};

// A call's keyword arguments, by the schema's argument names.
using KwargMap = std::unordered_map<std::string, c10::IValue>;

// Runs a task somewhere (a thread pool, an executor); RunAsync and forked
// calls use it. Null means LibTorch's inter-op pool (at::launch).
using TaskLauncher = std::function<void(std::function<void()>)>;

// How many of a module's nodes got each kind of kernel.
struct KernelCounts {
  size_t out_variant = 0;  // write into memory the runtime plans
  size_t native = 0;       // the runtime's own kernels; control flow (If, Loop) included
  size_t fallback = 0;     // the JIT's operator, run on a small stack
  size_t total() const { return out_variant + native + fallback; }
};

// One node of a module's prepared graph (StaticModule::DescribeNodes, and
// what a NodeObserver is told).
struct NodeDescription {
  const torch::jit::Node* node = nullptr;  // in StaticModule::graph()
  // "4", or "4/1/0" for the first node of the second block of node 4.
  std::string position;
  NodeKind kind = NodeKind::kNative;
  std::string fallback_reason;  // fallbacks: why no kernel of ours took it
  // How many of its outputs the memory plan places in planned memory (the
  // arena, or the output buffer with manage_output_tensors); the others get
  // memory of their own from the allocator on every run.
  size_t planned_outputs = 0;
  // A fused pointwise group: its ops in order ("silu, mul, hardswish"), and
  // how many of its outputs are used after it (the others only serve the
  // node-by-node path).
  std::string fused_ops;
  size_t fused_outputs_used = 0;
  // StaticModule::DescribeNodes only: for a node next to a fused group that
  // did not join it, why not.
  std::string not_fused_reason;
  // StaticModule::DescribeNodes only: what its kernel's caches hold now
  // (plans per input shape, weights re-laid out for the kernel).
  KernelCacheStats caches;
};

// Told about every kernel call of StaticRuntime::RunObserved (If and Loop
// nodes are not calls: their sub-blocks' nodes are reported). Before a call
// its outputs may hold last run's values or planned memory.
class NodeObserver {
 public:
  virtual ~NodeObserver() = default;
  virtual void Before(const NodeDescription& node, const NodeIO& values) {}
  virtual void After(const NodeDescription& node, const NodeIO& values) {}
  // How long each phase of the run took: "bind", "allocate" (memory
  // planning), "nodes", "release".
  virtual void Phase(const char* name, double microseconds) {}
};

// What memory planning does for a runtime (all zero without planning).
struct MemoryStats {
  ArenaStats intermediates;
  size_t unmanaged_values = 0;  // values the runtime produces outside any plan
  size_t output_tensors = 0;    // outputs in the output buffer
  size_t output_buffer_bytes = 0;
  // Tensors a run hands out that share one allocation per run (Options::
  // group_output_allocations), and that allocation's size.
  size_t output_slab_tensors = 0;
  size_t output_slab_bytes = 0;
};

// The plan of the intermediates of a runtime's last run: where each managed
// tensor lived in the arena and when.
struct MemoryPlanDescription {
  struct Tensor {
    std::string producer;   // the kind of the node that produces it ("conv2d")
    size_t first_node = 0;  // the top-level nodes it is alive at
    size_t last_node = 0;
    size_t offset = 0;
    size_t bytes = 0;
  };
  std::vector<Tensor> tensors;
  size_t planned_bytes = 0;  // the arena the plan needs
  ArenaStats stats;
};

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_RUNTIME_TYPES_H_
