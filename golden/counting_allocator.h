// A CPU allocator for tests that counts allocations and passes them on to
// LibTorch's default CPU allocator. Installed once per test binary (LibTorch
// keeps the highest-priority allocator for the rest of the process).
#ifndef STATIC_RUNTIME_GOLDEN_COUNTING_ALLOCATOR_H_
#define STATIC_RUNTIME_GOLDEN_COUNTING_ALLOCATOR_H_

#include <atomic>
#include <cstddef>

#include "c10/core/Allocator.h"

namespace static_runtime {
namespace testing {

class CountingAllocator final : public c10::Allocator {
 public:
  // Installs the counting allocator (the first call) and returns it.
  static CountingAllocator& Installed();

  c10::DataPtr allocate(size_t bytes) const override;
  c10::DeleterFnPtr raw_deleter() const override;
  size_t count() const { return count_.load(); }

 private:
  explicit CountingAllocator(c10::Allocator* base) : base_(base) {}

  c10::Allocator* base_;
  mutable std::atomic<size_t> count_{0};
};

}  // namespace testing
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_GOLDEN_COUNTING_ALLOCATOR_H_
