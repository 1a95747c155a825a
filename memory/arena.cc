#include "memory/arena.h"

#include "c10/core/CPUAllocator.h"
#include "c10/util/Exception.h"

namespace static_runtime {
namespace memory {

void Arena::Reserve(size_t bytes) {
  if (bytes <= capacity_) return;
  buffer_ = c10::DataPtr();  // release first: the peak stays at one buffer
  capacity_ = 0;             // until the new buffer is there (allocating may throw)
  buffer_ = c10::GetCPUAllocator()->allocate(bytes);
  TORCH_CHECK(reinterpret_cast<uintptr_t>(buffer_.get()) % kAlignment == 0,
              "the CPU allocator returned memory that is not ", kAlignment, "-byte aligned");
  capacity_ = bytes;
}

}  // namespace memory
}  // namespace static_runtime
