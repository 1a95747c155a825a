// ArenaStats: what the memory planner reports about the arena of managed
// intermediates. Plain numbers, part of the public API (runtime/types.h
// returns it in MemoryStats); all zero without memory planning.
#ifndef STATIC_RUNTIME_MEMORY_ARENA_STATS_H_
#define STATIC_RUNTIME_MEMORY_ARENA_STATS_H_

#include <cstddef>

namespace static_runtime {

struct ArenaStats {
  size_t managed_tensors = 0;
  size_t reused_tensors = 0;  // managed tensors sharing memory with another
  // The arena each planning algorithm would need for the last run's sizes,
  // and the most bytes alive at one node (no plan needs less).
  size_t storage_groups_bytes = 0;
  size_t greedy_by_size_bytes = 0;
  size_t lower_bound_bytes = 0;
  size_t arena_bytes = 0;  // the arena's capacity
  // The algorithm in use: "greedy_by_size" or "storage_groups" ("" before
  // the first plan).
  const char* algorithm = "";
  size_t replans = 0;  // plans made after the first (sizes grew)
};

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_MEMORY_ARENA_STATS_H_
