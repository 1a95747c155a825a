// Arena: one 64-byte-aligned CPU buffer that grows on demand. It only owns
// memory; which tensor lives where is the plan's business.
#ifndef STATIC_RUNTIME_MEMORY_ARENA_H_
#define STATIC_RUNTIME_MEMORY_ARENA_H_

#include <cstddef>

#include "c10/core/Allocator.h"

namespace static_runtime {
namespace memory {

class Arena {
 public:
  static constexpr size_t kAlignment = 64;

  // Makes the buffer at least `bytes` long. Growing replaces the buffer, so
  // nothing may point into it when this is called.
  void Reserve(size_t bytes);
  char* data() const { return static_cast<char*>(buffer_.get()); }
  size_t capacity() const { return capacity_; }

 private:
  c10::DataPtr buffer_;
  size_t capacity_ = 0;
};

}  // namespace memory
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_MEMORY_ARENA_H_
