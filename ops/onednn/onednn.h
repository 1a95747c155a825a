// Helpers for kernels built on oneDNN (Debian's libdnnl, the library behind
// LibTorch's own mkldnn ops): the CPU engine, a cache of per-shape plans, and
// per-thread execution state, so that a steady-state call allocates nothing.
//
// oneDNN primitives are specialized for shapes; a kernel keeps one plan per
// input shape it has seen, up to a bound (PlanCache), and runs it from any
// thread. Kernels
// take and give dense NHWC (channels-last) activations: on this oneDNN every
// convolution with NCHW or mixed layouts falls back to slow reference or gemm
// implementations (measured, see docs/convolutions.md); a kernel that wants a
// blocked layout reorders into per-thread buffers (ThreadScratchpad).
#ifndef STATIC_RUNTIME_OPS_ONEDNN_ONEDNN_H_
#define STATIC_RUNTIME_OPS_ONEDNN_ONEDNN_H_

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ATen/ATen.h"
#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "dnnl.hpp"
#include "execution/kernel_caches.h"
#include "ir/operators/operators.h"
#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {
namespace onednn {

const dnnl::engine& CpuEngine();

// A float32 memory descriptor of `dims` in `tag` layout.
dnnl::memory::desc FloatDesc(const dnnl::memory::dims& dims, dnnl::memory::format_tag tag);

// A per-thread buffer of at least `bytes`, reused from call to call: slot 0
// is the scratchpad every Plan hands its primitive; kernels use the others
// for intermediate results between the primitives of one call.
void* ThreadScratchpad(size_t bytes, int slot = 0);

// One primitive with its arguments, for one input shape. Each thread has its
// own copy of the argument map (memory objects whose data handles are set per
// call), made on its first call.
class Plan {
 public:
  // `args` holds every argument the primitive takes but the scratchpad, whose
  // memory (of `scratchpad`'s size) is this thread's, set on every call.
  Plan(dnnl::primitive primitive, std::unordered_map<int, dnnl::memory> args,
       dnnl::memory::desc scratchpad);

  // Runs the primitive with the arguments `pointers` (argument id -> data)
  // set on this thread's memory objects; other arguments keep their data.
  void Execute(std::initializer_list<std::pair<int, void*>> pointers) const;

 private:
  struct ThreadState {
    dnnl::stream stream;
    std::unordered_map<int, dnnl::memory> args;
  };
  // This thread's state: from a per-thread table keyed by id_ (no lock),
  // made under mutex_ on the thread's first call.
  ThreadState& ForThisThread() const;

  const uint64_t id_;  // unique in the process (a plan's address may be reused)
  dnnl::primitive primitive_;
  size_t scratchpad_bytes_;
  std::unordered_map<int, dnnl::memory> prototype_args_;
  mutable absl::Mutex mutex_;
  mutable absl::flat_hash_map<std::thread::id, std::unique_ptr<ThreadState>> threads_
      ABSL_GUARDED_BY(mutex_);
};

// oneDNN's copy of memory laid out as `from` into memory laid out as `to`
// (DNNL_ARG_FROM, DNNL_ARG_TO: set per call).
std::unique_ptr<Plan> MakeReorder(const dnnl::memory::desc& from, const dnnl::memory::desc& to);

// A primitive from one source (DNNL_ARG_SRC) to one destination
// (DNNL_ARG_DST) on the layouts it chose, between reorders from the caller's
// source layout and to the caller's destination layout where they differ,
// through per-thread buffers (ThreadScratchpad slots 1 and 2).
class ReorderedPlan {
 public:
  // `args` holds the primitive's arguments but its source, destination and
  // scratchpad; `src` and `dst` are the caller's layouts.
  ReorderedPlan(dnnl::primitive primitive, const dnnl::memory::desc& primitive_src,
                const dnnl::memory::desc& primitive_dst, std::unordered_map<int, dnnl::memory> args,
                const dnnl::memory::desc& scratchpad, const dnnl::memory::desc& src,
                const dnnl::memory::desc& dst);

  // Runs it from `src` into `dst`, both in the caller's layouts.
  void Execute(void* src, void* dst) const;

 private:
  std::unique_ptr<Plan> primitive_;
  std::unique_ptr<Plan> to_src_, from_dst_;  // null: none needed
  size_t src_bytes_ = 0, dst_bytes_ = 0;
};

// The ReorderedPlan of the weighted primitive `pd` describes (a
// convolution or deconvolution: Primitive is its class), on `weights` in the
// layout it chose and `bias` (float, 1D; undefined: none), between the
// caller's `src` and `dst` layouts.
template <typename Primitive>
std::unique_ptr<ReorderedPlan> MakeWeightedPlan(const typename Primitive::primitive_desc& pd,
                                                dnnl::memory weights, const at::Tensor& bias,
                                                const dnnl::memory::desc& src,
                                                const dnnl::memory::desc& dst) {
  std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_WEIGHTS, std::move(weights)}};
  if (bias.defined()) {
    args.emplace(DNNL_ARG_BIAS, dnnl::memory(FloatDesc({bias.size(0)}, dnnl::memory::format_tag::x),
                                             CpuEngine(), bias.data_ptr()));
  }
  return std::make_unique<ReorderedPlan>(Primitive(pd), pd.src_desc(), pd.dst_desc(),
                                         std::move(args), pd.scratchpad_desc(), src, dst);
}

// How many plans kernels' PlanCaches made in this process (each for a shape
// a kernel met the first time): none are made at a shape that was warmed up.
uint64_t PlansMade();
void CountPlanMade();  // (by PlanCache)

// Plans (a Plan, or a kernel's own group of them) by input shape (N, C, H,
// W), created on first use; safe to use from several threads. A cache keeps
// the plans of at most its account's shape_plans_per_cache() shapes
// (execution/kernel_caches.h: the account of the scope it was made in), and
// drops the least recently used one to make another: a plan in use by
// another call stays alive until that call is done (Get hands out a
// shared_ptr).
template <typename Value = Plan>
class PlanCache {
 public:
  using Key = std::array<int64_t, 4>;

  PlanCache() : account_(KernelCacheScope::Current()) {}
  ~PlanCache() {
    absl::MutexLock lock(&mutex_);
    account_->PlansDropped(plans_.size());
  }
  PlanCache(const PlanCache&) = delete;
  PlanCache& operator=(const PlanCache&) = delete;

  // The plan of `key` if this cache holds one, else null.
  std::shared_ptr<const Value> Find(const Key& key) {
    absl::ReaderMutexLock lock(&mutex_);
    auto found = plans_.find(key);
    return found == plans_.end() ? nullptr : Use(found->second);
  }

  // The plan of `key`, made by `make_plan` if this cache holds none.
  template <typename MakePlan>
  std::shared_ptr<const Value> Get(const Key& key, MakePlan&& make_plan) {
    if (std::shared_ptr<const Value> found = Find(key)) return found;
    std::shared_ptr<const Value> plan = make_plan();
    CountPlanMade();
    absl::MutexLock lock(&mutex_);
    auto [entry, inserted] = plans_.try_emplace(key, Entry{std::move(plan)});
    std::shared_ptr<const Value> used = Use(entry->second);  // now the most recent
    if (inserted) {
      account_->PlanMade();
      EvictBeyondCapacity();
    }
    return used;
  }

 private:
  struct Entry {
    std::shared_ptr<const Value> plan;
    std::atomic<uint64_t> last_use{~uint64_t{0}};  // (never: unlike any clock value)
    explicit Entry(std::shared_ptr<const Value> made) : plan(std::move(made)) {}
    // (A rehash moves entries, under the writer's lock.)
    Entry(Entry&& other) noexcept
        : plan(std::move(other.plan)), last_use(other.last_use.load(std::memory_order_relaxed)) {}
  };
  // Stamps `entry` the most recently used (no write to the shared clock
  // while one shape's calls follow each other) and hands out its plan.
  std::shared_ptr<const Value> Use(Entry& entry) {
    if (entry.last_use.load(std::memory_order_relaxed) != clock_.load(std::memory_order_relaxed)) {
      entry.last_use.store(clock_.fetch_add(1, std::memory_order_relaxed) + 1,
                           std::memory_order_relaxed);
    }
    return entry.plan;
  }
  // Drops least recently used plans while more than the account allows are
  // held.
  void EvictBeyondCapacity() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    const size_t capacity = std::max<size_t>(1, account_->shape_plans_per_cache());
    size_t evicted = 0;
    while (plans_.size() > capacity) {
      auto oldest = plans_.begin();
      for (auto it = plans_.begin(); it != plans_.end(); ++it) {
        if (it->second.last_use.load(std::memory_order_relaxed) <
            oldest->second.last_use.load(std::memory_order_relaxed)) {
          oldest = it;
        }
      }
      plans_.erase(oldest);
      ++evicted;
    }
    if (evicted > 0) account_->PlansEvicted(evicted);
  }

  const std::shared_ptr<KernelCacheAccount> account_;
  std::atomic<uint64_t> clock_{0};
  absl::Mutex mutex_;
  absl::flat_hash_map<Key, Entry> plans_ ABSL_GUARDED_BY(mutex_);
};

// What a weighted node (a convolution, a linear layer) holds constant: its
// weight (input 1, float32, made contiguous) and its bias (input 2: None, or
// a float32 vector; undefined when None). nullopt when either is not a
// constant of that form, or the weight does not have `weight_dim`
// dimensions: the node then falls back. The caller checks the bias's length
// against its output channels.
struct FrozenWeight {
  at::Tensor weight;
  at::Tensor bias;
};
std::optional<FrozenWeight> ReadFrozenWeight(const torch::jit::Node* node, int64_t weight_dim);

// What a fused node with frozen weights (conv2d_fused, linear_fused) holds
// constant: its weight and bias (ReadFrozenWeight; one bias value per output
// channel, the weight's first dimension) and its activation (the last three
// inputs: name, min, max).
struct FrozenParams : FrozenWeight {
  ops::FusedActivation activation;
};
std::optional<FrozenParams> ReadFrozenParams(const torch::jit::Node* node, int64_t weight_dim);

// The constant int list `value` with `size` entries (one entry stands for
// `size` copies of it, as ATen expands a convolution's stride), or nullopt.
std::optional<std::vector<int64_t>> ConstantIntList(const torch::jit::Value* value, size_t size);

// Applies `params`' activation to `out` in place as ATen does
// (ops::ActivationInPlace), but on a dense float tensor relu, hardtanh,
// hardswish and hardsigmoid with ops/activations/clamp_in_place.h (ATen's
// values, bit for bit, without its dispatch), and silu and gelu with
// ops/activations/epilogue_activations.h: within the bound the fused
// kernels declare (ops/core/error_bounds.h), 1.5x faster than ATen's.
void ApplyActivation(const FrozenParams& params, at::Tensor& out);

// One format a weight was packed into, and the packed bytes.
struct PackedCopy {
  dnnl_memory_desc_t format;
  const void* data;
  size_t bytes;
};

// A frozen weight re-laid out into the formats primitives ask for: one copy
// per format, made on first request and shared by every plan, thread and
// runtime of the kernel that owns the cache; counted in the prepared
// weights of the KernelCacheAccount it was made under.
//
// Compiled packages (runtime/package.h) carry the copies from process to
// process: PacksOf gives every format the live caches of a weight hold, and
// a cache made while a PreloadedPacks scope is active on its thread starts
// with the copies given for its weight (used in place, not copied).
class PackedWeights {
 public:
  // `plain` describes the weight as it is stored at `data`, which must
  // outlive the cache.
  PackedWeights(dnnl::memory::desc plain, void* data);
  ~PackedWeights();
  PackedWeights(const PackedWeights&) = delete;
  PackedWeights& operator=(const PackedWeights&) = delete;

  dnnl::memory Get(const dnnl::memory::desc& format);

  // The copy in `format` if there is one (made, or preloaded), else nullopt.
  std::optional<dnnl::memory> GetIfPacked(const dnnl::memory::desc& format);

  // The copy in `format` as Get gives it, but nullopt instead of a new copy
  // where this cache already holds `max_copies` copies in layouts of
  // `format`'s kind (blocked, or Winograd: whose layout depends on the
  // input's shape, so a copy per shape would grow without bound).
  std::optional<dnnl::memory> GetWithinKindLimit(const dnnl::memory::desc& format,
                                                 size_t max_copies);

 private:
  // Get's copy, or nullopt where `max_copies` (unbounded when nullopt)
  // copies of `format`'s kind are held (0: none may be made) and it would
  // make another.
  std::optional<dnnl::memory> Find(const dnnl::memory::desc& format,
                                   std::optional<size_t> max_copies);
  // The copy in `format` if one is made or preloaded.
  std::optional<dnnl::memory> Held(const dnnl::memory::desc& format);
  size_t CopiesOfKind(const dnnl::memory::desc& format) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Adds `packed` to the copies (and to the account's prepared weights).
  void Keep(const dnnl::memory& packed) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  friend std::vector<PackedCopy> PacksOf(const void* weight_data);

  const dnnl::memory::desc plain_;
  void* const data_;
  const std::shared_ptr<KernelCacheAccount> account_;  // (execution/kernel_caches.h)
  absl::Mutex mutex_;
  std::vector<dnnl::memory> packed_ ABSL_GUARDED_BY(mutex_);
  // Copies from a package not asked for yet (see PreloadedPacks).
  std::vector<PackedCopy> preloaded_ ABSL_GUARDED_BY(mutex_);
};

// The packed copies (one per format) that the live caches of the weight
// stored at `weight_data` hold; they stay valid while those caches live.
std::vector<PackedCopy> PacksOf(const void* weight_data);

// While alive, caches made on this thread for a weight at one of the keys
// start with its copies (whose data must outlive them). A copy's format is
// never interpreted: a copy is used only where a primitive asks for exactly
// that format (the same descriptor bytes) with exactly the copy's size.
class PreloadedPacks {
 public:
  using Map = absl::flat_hash_map<const void*, std::vector<PackedCopy>>;
  explicit PreloadedPacks(Map packs);
  ~PreloadedPacks();
  PreloadedPacks(const PreloadedPacks&) = delete;
  PreloadedPacks& operator=(const PreloadedPacks&) = delete;

 private:
  Map packs_;
  const Map* previous_;
};

}  // namespace onednn
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_ONEDNN_ONEDNN_H_
