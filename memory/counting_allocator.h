// A CPU allocator that counts allocations and their bytes and passes them on
// to LibTorch's default CPU allocator: for tests that assert how much a run
// allocates, and for the allocations per run `sr bench` and `sr profile` report. It can also fail a
// chosen allocation, as LibTorch's allocator fails when memory runs out (a
// c10::Error), for tests of what allocation failures do. Installed once per
// process (LibTorch keeps the highest-priority allocator for the rest of the
// process); counting costs one relaxed atomic add per allocation.
#ifndef STATIC_RUNTIME_MEMORY_COUNTING_ALLOCATOR_H_
#define STATIC_RUNTIME_MEMORY_COUNTING_ALLOCATOR_H_

#include <atomic>
#include <cstddef>

#include "c10/core/Allocator.h"

namespace static_runtime {
namespace memory {

class CountingAllocator final : public c10::Allocator {
 public:
  // Installs the counting allocator (the first call) and returns it.
  static CountingAllocator& Installed();

  c10::DataPtr allocate(size_t bytes) const override;
  c10::DeleterFnPtr raw_deleter() const override;
  // Allocations (and their bytes) since the process started.
  size_t count() const { return count_.load(std::memory_order_relaxed); }
  size_t bytes() const { return bytes_.load(std::memory_order_relaxed); }
  // Fails the k-th allocation from now (k >= 1; 0: none), on any thread.
  void FailAllocation(size_t k) { fail_countdown_.store(k, std::memory_order_relaxed); }

 private:
  explicit CountingAllocator(c10::Allocator* base) : base_(base) {}

  c10::Allocator* base_;
  mutable std::atomic<size_t> count_{0};
  mutable std::atomic<size_t> bytes_{0};
  mutable std::atomic<size_t> fail_countdown_{0};
};

}  // namespace memory
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_MEMORY_COUNTING_ALLOCATOR_H_
