// What the caches of a model's kernels hold, and how many input shapes each
// keeps: kernels keep a plan per input shape they meet (oneDNN primitives,
// which depend on the shape) and weights re-laid out for their primitives
// (which do not); a model that meets many shapes (sentence lengths, batch
// sizes) must not grow without bound, and its owner must be able to see
// what they hold.
//
// Contract: the runtime opens a KernelCacheScope while it makes a node's
// kernel; every cache the kernel makes then (on that thread) reports to the
// scope's counters and keeps at most the scope's plans per cache (a kernel
// that makes a cache later, as a convolution's kernel of a window of its
// taps, opens a scope with the account it was made under). Outside any
// scope a cache reports to an account of its own and keeps
// kDefaultShapePlansPerCache plans. Counters are read at any time, from any
// thread, while kernels run (relaxed atomics: a snapshot, not a
// transaction).
#ifndef STATIC_RUNTIME_EXECUTION_KERNEL_CACHES_H_
#define STATIC_RUNTIME_EXECUTION_KERNEL_CACHES_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace static_runtime {

// The plans per input shape one kernel cache keeps unless told otherwise
// (Options::shape_plans_per_kernel's default).
inline constexpr size_t kDefaultShapePlansPerCache = 64;

// A snapshot of what caches hold.
struct KernelCacheStats {
  size_t shape_plans = 0;          // plans held now
  size_t shape_plans_made = 0;     // made since the caches were
  size_t shape_plans_evicted = 0;  // dropped, least recently used first
  // Weights re-laid out for kernels (oneDNN's blocked and Winograd formats,
  // transformed Winograd weights, packed matrix panels), and their copies.
  size_t prepared_weight_bytes = 0;
  size_t prepared_weights = 0;

  KernelCacheStats& operator+=(const KernelCacheStats& other);
};

// The live counters caches report to (shared by the caches of one node's
// kernel and the runtime that reports them).
class KernelCacheAccount {
 public:
  explicit KernelCacheAccount(size_t shape_plans_per_cache = kDefaultShapePlansPerCache)
      : shape_plans_per_cache_(shape_plans_per_cache) {}

  size_t shape_plans_per_cache() const { return shape_plans_per_cache_; }

  void PlanMade() {
    Add(made_, 1);
    Add(held_, 1);
  }
  void PlansEvicted(size_t plans) {
    Add(evicted_, static_cast<int64_t>(plans));
    Add(held_, -static_cast<int64_t>(plans));
  }
  // Plans that left with their cache (its kernel is gone).
  void PlansDropped(size_t plans) { Add(held_, -static_cast<int64_t>(plans)); }
  void WeightPrepared(size_t bytes) {
    Add(weight_bytes_, static_cast<int64_t>(bytes));
    Add(weights_, 1);
  }
  void WeightDropped(size_t bytes) {
    Add(weight_bytes_, -static_cast<int64_t>(bytes));
    Add(weights_, -1);
  }

  KernelCacheStats Stats() const;

 private:
  static void Add(std::atomic<int64_t>& counter, int64_t delta) {
    counter.fetch_add(delta, std::memory_order_relaxed);
  }

  const size_t shape_plans_per_cache_;
  std::atomic<int64_t> held_{0}, made_{0}, evicted_{0}, weight_bytes_{0}, weights_{0};
};

// While alive, caches made on this thread report to `account` (nested
// scopes: the innermost).
class KernelCacheScope {
 public:
  explicit KernelCacheScope(std::shared_ptr<KernelCacheAccount> account);
  ~KernelCacheScope();
  KernelCacheScope(const KernelCacheScope&) = delete;
  KernelCacheScope& operator=(const KernelCacheScope&) = delete;

  // The account of the innermost scope on this thread, or a new one of its
  // own (kDefaultShapePlansPerCache plans per cache) outside any scope.
  static std::shared_ptr<KernelCacheAccount> Current();

 private:
  std::shared_ptr<KernelCacheAccount> account_;
  KernelCacheScope* previous_;
};

// `bytes` of a weight prepared for a kernel (a packed copy made with the
// kernel), counted in the account of the scope it is made in for as long
// as it lives (moved with it).
class PreparedWeightCharge {
 public:
  explicit PreparedWeightCharge(size_t bytes);
  ~PreparedWeightCharge();
  PreparedWeightCharge(PreparedWeightCharge&& other) noexcept;
  PreparedWeightCharge& operator=(PreparedWeightCharge&& other) noexcept;

 private:
  std::shared_ptr<KernelCacheAccount> account_;  // null: moved from
  size_t bytes_;
};

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_EXECUTION_KERNEL_CACHES_H_
