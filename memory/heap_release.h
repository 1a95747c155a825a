// Gives the heap pages the process has freed back to the operating system
// (glibc's malloc_trim): memory a one-off peak used (a first run at a larger
// shape, whose tensors outgrew the arena; the arena it replaced) otherwise
// stays resident, kept by malloc for later allocations. Costs one walk over
// malloc's free lists, holding each of its arenas' locks in turn: for rare
// events (an arena that grew), not per run. Does nothing where the C
// library is not glibc.
#ifndef STATIC_RUNTIME_MEMORY_HEAP_RELEASE_H_
#define STATIC_RUNTIME_MEMORY_HEAP_RELEASE_H_

#include <cstdint>

namespace static_runtime {
namespace memory {

void ReleaseFreedHeap();

// How many times ReleaseFreedHeap ran in this process (for tests).
uint64_t FreedHeapReleases();

}  // namespace memory
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_MEMORY_HEAP_RELEASE_H_
