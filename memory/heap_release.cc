#include "memory/heap_release.h"

#include <atomic>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace static_runtime {
namespace memory {
namespace {

std::atomic<uint64_t> releases{0};

}  // namespace

void ReleaseFreedHeap() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
  releases.fetch_add(1, std::memory_order_relaxed);
}

uint64_t FreedHeapReleases() { return releases.load(std::memory_order_relaxed); }

}  // namespace memory
}  // namespace static_runtime
