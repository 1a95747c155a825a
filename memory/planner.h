// MemoryPlanner: the per-run side of memory planning for one runtime. Given
// the lifetimes of the managed tensors (value slots the caller names by
// index), it keeps one tensor per managed slot whose storage points into the
// arena during a run and owns no memory between runs.
//
//   Allocate(values): before a run. Re-plans if a size grew, grows the arena,
//     and points every managed slot's tensor at its offset (creating the
//     tensor if the slot is empty and its dtype is known), so an out-variant
//     kernel writes into the arena without allocating.
//   Release(values, learn): after a run (also after a failed one). Detaches
//     every managed tensor's storage: no tensor points into the arena
//     afterwards. With `learn` (the run succeeded), first records each
//     managed tensor's size: a tensor that outgrew its slot during the run
//     got ordinary memory from the allocator; it is freed here and the next
//     Allocate plans the larger size. A failed run, which may have stopped
//     before most tensors were made, teaches nothing: before the first
//     successful run there is no plan.
//
// Sizes start from `initial` (from a run on sample inputs) or are learned
// from the first run. Both algorithms of plan.h run; the smaller plan is used.
//
// Poisoning (a test mode, Options::poison_recycled_memory): arena memory no
// live tensor owns holds 0xFF bytes (a NaN for floats, -1 for integers) and,
// under AddressSanitizer, is poisoned: the whole arena from Allocate, a
// tensor's bytes from its defining node (BeforeNode of its first number)
// until the first node after its last use, and all of it again at Release.
// A kernel that reads a tensor after its memory was recycled then reads the
// pattern (or ASan reports it) instead of values that happen to be right.
#ifndef STATIC_RUNTIME_MEMORY_PLANNER_H_
#define STATIC_RUNTIME_MEMORY_PLANNER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "ATen/core/ivalue.h"
#include "absl/types/span.h"
#include "memory/arena.h"
#include "memory/arena_stats.h"
#include "memory/plan.h"

namespace static_runtime {
namespace memory {

// What a managed slot holds between runs: its largest size and its dtype.
struct TensorRecord {
  size_t bytes = 0;
  std::optional<c10::ScalarType> dtype;
};

class MemoryPlanner {
 public:
  // `slots[i]` is the value slot of the managed tensor with lifetime
  // `lifetimes[i]` (bytes ignored); `initial` is empty or one per slot.
  // With `handed_out`, the tensors are graph outputs the caller holds:
  // Release detaches them even though they are shared (the caller promised
  // not to use them any more).
  MemoryPlanner(std::vector<uint32_t> slots, std::vector<Lifetime> lifetimes,
                std::vector<TensorRecord> initial = {}, bool handed_out = false);
  ~MemoryPlanner();
  MemoryPlanner(MemoryPlanner&&) = default;
  MemoryPlanner& operator=(MemoryPlanner&&) = default;

  void Allocate(absl::Span<c10::IValue> values);
  void Release(absl::Span<c10::IValue> values, bool learn = true);

  // Turns poisoning on (before the first run).
  void EnablePoisoning() { poison_ = true; }
  // After the arena grows to kReleaseFromArenaBytes or more, calls
  // `release_freed_heap`, which gives the heap pages freed meanwhile back to
  // the system (memory/heap_release.h's ReleaseFreedHeap, or the caller's
  // way of running it: the runtime's does it in the background): the old
  // arena's, and the tensors that outgrew it in the run before
  // (Options::release_freed_memory). Below that size the freed chunks are
  // left to malloc, which reuses them: a release walks the whole heap and
  // costs 0.3-0.5 ms (a ~200 MiB process), more than a small model's call.
  static constexpr size_t kReleaseFromArenaBytes = size_t{1} << 20;
  void ReleaseFreedHeapWhenGrowing(std::function<void()> release_freed_heap) {
    release_freed_heap_ = std::move(release_freed_heap);
  }
  bool poisoning() const { return poison_; }
  // With poisoning: before the node numbered `number` (lifetimes' numbers,
  // memory/lifetimes.h) runs, poisons the tensors whose last use is before
  // it and unpoisons those it defines.
  void BeforeNode(size_t number);

  // True if slot `i` of `values` is managed and holds no memory.
  bool IsReleased(absl::Span<const c10::IValue> values, uint32_t slot) const;
  bool IsManaged(uint32_t slot) const;
  // True if `pointer` points into the arena.
  bool InArena(const void* pointer) const;

  const ArenaStats& stats() const { return stats_; }
  const std::vector<TensorRecord>& records() const { return records_; }
  const Plan& plan() const { return plan_; }
  const std::vector<Lifetime>& lifetimes() const { return lifetimes_; }

 private:
  void Replan();

  std::vector<uint32_t> slots_;
  std::vector<Lifetime> lifetimes_;
  std::vector<TensorRecord> records_;
  std::vector<bool> is_managed_;  // by slot index
  bool handed_out_ = false;
  Plan plan_;
  bool planned_ = false;
  Arena arena_;
  ArenaStats stats_;
  bool poison_ = false;
  std::function<void()> release_freed_heap_;  // empty: none
  std::vector<bool> live_;                    // with poisoning: by lifetime, its bytes unpoisoned
};

}  // namespace memory
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_MEMORY_PLANNER_H_
