// Memory planning as pure functions: given each tensor's lifetime (first and
// last node index, inclusive) and byte size, decide where in one arena each
// tensor lives so that tensors alive at the same time never overlap.
//
// Two algorithms behind one interface:
//  - kStorageGroups: PyTorch Static Runtime's scheme. Tensors (largest first)
//    join the first group none of whose members they overlap in time; a group
//    is one storage as large as its largest member; groups sit side by side.
//  - kGreedyBySize: TensorFlow Lite's arena planner / Pisarchyk & Lee 2020.
//    Tensors (largest first) go into the best-fitting gap (the smallest that
//    fits) between tensors already placed that overlap them in time, or at
//    the end. Three more orders (largest size x lifetime first, longest-lived
//    first, earliest first) and, for up to 64 tensors, 64 seeded random
//    orders are tried too; the smallest arena is kept.
// Offsets are multiples of `alignment` (a power of two); the arena size is a
// multiple of it too. LowerBound is what no plan can beat: the largest total
// (aligned) size of tensors alive at one node.
#ifndef STATIC_RUNTIME_MEMORY_PLAN_H_
#define STATIC_RUNTIME_MEMORY_PLAN_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace static_runtime {
namespace memory {

struct Lifetime {
  size_t first = 0;  // index of the node that defines the tensor
  size_t last = 0;   // index of the last node that uses it (>= first)
  size_t bytes = 0;
};

struct Plan {
  std::vector<size_t> offsets;  // one per lifetime
  size_t arena_bytes = 0;
};

enum class Algorithm { kStorageGroups, kGreedyBySize };
const char* AlgorithmName(Algorithm algorithm);

Plan PlanMemory(Algorithm algorithm, const std::vector<Lifetime>& lifetimes, size_t alignment);

size_t AlignUp(size_t bytes, size_t alignment);

// The largest total aligned size of tensors alive at the same node.
size_t LowerBound(const std::vector<Lifetime>& lifetimes, size_t alignment);

// OK if `plan` is valid for `lifetimes`, else InvalidArgument naming the
// first violation.
absl::Status CheckPlan(const Plan& plan, const std::vector<Lifetime>& lifetimes, size_t alignment);

}  // namespace memory
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_MEMORY_PLAN_H_
