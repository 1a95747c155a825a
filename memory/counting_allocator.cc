#include "memory/counting_allocator.h"

#include "c10/core/CPUAllocator.h"
#include "c10/util/Exception.h"

namespace static_runtime {
namespace memory {

CountingAllocator& CountingAllocator::Installed() {
  static CountingAllocator* const allocator = [] {
    auto* counting = new CountingAllocator(c10::GetCPUAllocator());
    c10::SetCPUAllocator(counting, /*priority=*/100);
    return counting;
  }();
  return *allocator;
}

c10::DataPtr CountingAllocator::allocate(size_t bytes) const {
  // LibTorch's CPU allocator returns no memory for zero bytes (an empty
  // tensor's storage): nothing to count.
  if (bytes == 0) return base_->allocate(bytes);
  count_.fetch_add(1, std::memory_order_relaxed);
  bytes_.fetch_add(bytes, std::memory_order_relaxed);
  size_t countdown = fail_countdown_.load(std::memory_order_relaxed);
  while (countdown > 0 && !fail_countdown_.compare_exchange_weak(countdown, countdown - 1,
                                                                 std::memory_order_relaxed)) {
  }
  TORCH_CHECK(countdown != 1, "CountingAllocator: not enough memory (a failure injected for ",
              bytes, " bytes)");
  return base_->allocate(bytes);
}

c10::DeleterFnPtr CountingAllocator::raw_deleter() const { return base_->raw_deleter(); }

}  // namespace memory
}  // namespace static_runtime
