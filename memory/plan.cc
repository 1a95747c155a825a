#include "memory/plan.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "absl/strings/str_cat.h"

namespace static_runtime {
namespace memory {
namespace {

bool Overlap(const Lifetime& a, const Lifetime& b) {
  return a.first <= b.last && b.first <= a.last;
}

// Indices of `lifetimes`, largest first; ties by earlier start, then index,
// so plans are deterministic.
std::vector<size_t> LargestFirst(const std::vector<Lifetime>& lifetimes) {
  std::vector<size_t> order(lifetimes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (lifetimes[a].bytes != lifetimes[b].bytes) return lifetimes[a].bytes > lifetimes[b].bytes;
    return lifetimes[a].first < lifetimes[b].first;
  });
  return order;
}

Plan StorageGroups(const std::vector<Lifetime>& lifetimes, size_t alignment) {
  struct Group {
    size_t bytes = 0;
    std::vector<size_t> members;
  };
  std::vector<Group> groups;
  std::vector<size_t> group_of(lifetimes.size());
  for (size_t index : LargestFirst(lifetimes)) {
    size_t chosen = groups.size();
    for (size_t g = 0; g < groups.size() && chosen == groups.size(); ++g) {
      bool free = true;
      for (size_t member : groups[g].members) {
        free = free && !Overlap(lifetimes[member], lifetimes[index]);
      }
      if (free) chosen = g;
    }
    if (chosen == groups.size()) groups.emplace_back();
    groups[chosen].members.push_back(index);
    groups[chosen].bytes =
        std::max(groups[chosen].bytes, AlignUp(lifetimes[index].bytes, alignment));
    group_of[index] = chosen;
  }
  Plan plan;
  std::vector<size_t> group_offset(groups.size());
  for (size_t g = 0; g < groups.size(); ++g) {
    group_offset[g] = plan.arena_bytes;
    plan.arena_bytes += groups[g].bytes;
  }
  plan.offsets.resize(lifetimes.size());
  for (size_t i = 0; i < lifetimes.size(); ++i) plan.offsets[i] = group_offset[group_of[i]];
  return plan;
}

Plan GreedyBySize(const std::vector<Lifetime>& lifetimes, size_t alignment) {
  Plan plan;
  plan.offsets.assign(lifetimes.size(), 0);
  std::vector<size_t> placed;  // indices, kept sorted by offset
  for (size_t index : LargestFirst(lifetimes)) {
    const size_t size = AlignUp(lifetimes[index].bytes, alignment);
    size_t best_offset = 0;
    size_t best_gap = SIZE_MAX;
    size_t cursor = 0;  // end of the highest tensor seen so far (in offset order)
    bool found = false;
    for (size_t other : placed) {
      if (!Overlap(lifetimes[other], lifetimes[index])) continue;
      const size_t other_offset = plan.offsets[other];
      if (other_offset >= cursor) {
        const size_t gap = other_offset - cursor;
        if (gap >= size && gap < best_gap) {
          best_gap = gap;
          best_offset = cursor;
          found = true;
        }
      }
      cursor = std::max(cursor, other_offset + AlignUp(lifetimes[other].bytes, alignment));
    }
    plan.offsets[index] = found ? best_offset : cursor;
    plan.arena_bytes = std::max(plan.arena_bytes, plan.offsets[index] + size);
    placed.insert(std::upper_bound(placed.begin(), placed.end(), index,
                                   [&](size_t a, size_t b) {
                                     return plan.offsets[a] < plan.offsets[b];
                                   }),
                  index);
  }
  return plan;
}

}  // namespace

const char* AlgorithmName(Algorithm algorithm) {
  return algorithm == Algorithm::kStorageGroups ? "storage_groups" : "greedy_by_size";
}

size_t AlignUp(size_t bytes, size_t alignment) {
  return (bytes + alignment - 1) / alignment * alignment;
}

Plan PlanMemory(Algorithm algorithm, const std::vector<Lifetime>& lifetimes,
                size_t alignment) {
  return algorithm == Algorithm::kStorageGroups ? StorageGroups(lifetimes, alignment)
                                                : GreedyBySize(lifetimes, alignment);
}

size_t LowerBound(const std::vector<Lifetime>& lifetimes, size_t alignment) {
  // Sweep: +size at first, -size after last.
  std::map<size_t, long long> delta;
  for (const Lifetime& lifetime : lifetimes) {
    const long long size = static_cast<long long>(AlignUp(lifetime.bytes, alignment));
    delta[lifetime.first] += size;
    delta[lifetime.last + 1] -= size;
  }
  long long alive = 0;
  long long peak = 0;
  for (const auto& [node, change] : delta) {
    alive += change;
    peak = std::max(peak, alive);
  }
  return static_cast<size_t>(peak);
}

std::string CheckPlan(const Plan& plan, const std::vector<Lifetime>& lifetimes,
                      size_t alignment) {
  if (plan.offsets.size() != lifetimes.size()) return "one offset per tensor expected";
  if (plan.arena_bytes % alignment != 0) return "arena size not aligned";
  for (size_t i = 0; i < lifetimes.size(); ++i) {
    if (plan.offsets[i] % alignment != 0) return absl::StrCat("tensor ", i, " misaligned");
    if (plan.offsets[i] + lifetimes[i].bytes > plan.arena_bytes) {
      return absl::StrCat("tensor ", i, " ends past the arena");
    }
    for (size_t j = 0; j < i; ++j) {
      const bool apart = plan.offsets[i] + lifetimes[i].bytes <= plan.offsets[j] ||
                         plan.offsets[j] + lifetimes[j].bytes <= plan.offsets[i];
      if (Overlap(lifetimes[i], lifetimes[j]) && !apart && lifetimes[i].bytes > 0 &&
          lifetimes[j].bytes > 0) {
        return absl::StrCat("tensors ", j, " and ", i, " are alive together and overlap");
      }
    }
  }
  return "";
}

}  // namespace memory
}  // namespace static_runtime
