#include "memory/plan.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <random>

#include "absl/strings/str_cat.h"

namespace static_runtime {
namespace memory {
namespace {

constexpr size_t kShuffledOrdersUpTo = 64;
constexpr int kShuffledOrders = 64;

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
    std::map<size_t, size_t> busy;  // first -> last of members, disjoint
    bool Free(const Lifetime& lifetime) const {
      auto next = busy.lower_bound(lifetime.first);
      if (next != busy.end() && next->first <= lifetime.last) return false;
      if (next == busy.begin()) return true;
      return std::prev(next)->second < lifetime.first;
    }
  };
  std::vector<Group> groups;
  std::vector<size_t> group_of(lifetimes.size());
  for (size_t index : LargestFirst(lifetimes)) {
    const Lifetime& lifetime = lifetimes[index];
    size_t chosen = 0;
    while (chosen < groups.size() && !groups[chosen].Free(lifetime)) ++chosen;
    if (chosen == groups.size()) groups.emplace_back();
    groups[chosen].busy.emplace(lifetime.first, lifetime.last);
    groups[chosen].bytes = std::max(groups[chosen].bytes, AlignUp(lifetime.bytes, alignment));
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

// Places tensors in `order`, each in the best-fitting gap between the
// already placed tensors that overlap it in time. Placed tensors are found
// through per-node buckets, so the cost depends on how many tensors overlap,
// not on how many there are.
Plan GreedyInOrder(const std::vector<Lifetime>& lifetimes, size_t alignment,
                   const std::vector<size_t>& order) {
  Plan plan;
  plan.offsets.assign(lifetimes.size(), 0);
  size_t horizon = 0;
  for (const Lifetime& lifetime : lifetimes) horizon = std::max(horizon, lifetime.last + 1);
  std::vector<std::vector<size_t>> alive_at(horizon);  // placed tensors per node
  std::vector<size_t> seen(lifetimes.size(), SIZE_MAX);
  std::vector<size_t> overlapping;
  for (size_t index : order) {
    const Lifetime& lifetime = lifetimes[index];
    const size_t size = AlignUp(lifetime.bytes, alignment);
    overlapping.clear();
    for (size_t node = lifetime.first; node <= lifetime.last; ++node) {
      for (size_t other : alive_at[node]) {
        if (seen[other] != index) {
          seen[other] = index;
          overlapping.push_back(other);
        }
      }
    }
    std::sort(overlapping.begin(), overlapping.end(),
              [&](size_t a, size_t b) { return plan.offsets[a] < plan.offsets[b]; });
    size_t best_offset = 0;
    size_t best_gap = SIZE_MAX;
    size_t cursor = 0;  // end of the tensors seen so far, in offset order
    bool found = false;
    for (size_t other : overlapping) {
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
    for (size_t node = lifetime.first; node <= lifetime.last; ++node) {
      alive_at[node].push_back(index);
    }
  }
  return plan;
}

// Best fit with tensors taken largest first, and with three other orders
// (largest size x lifetime first, longest-lived first, earliest first), plus
// random orders for small graphs; the smallest arena wins.
Plan GreedyBySize(const std::vector<Lifetime>& lifetimes, size_t alignment) {
  std::vector<std::vector<size_t>> orders = {LargestFirst(lifetimes)};
  std::vector<size_t> by_area = orders[0];
  std::stable_sort(by_area.begin(), by_area.end(), [&](size_t a, size_t b) {
    auto area = [&](size_t i) {
      return lifetimes[i].bytes * (lifetimes[i].last - lifetimes[i].first + 1);
    };
    return area(a) > area(b);
  });
  orders.push_back(std::move(by_area));
  std::vector<size_t> by_duration = orders[0];
  std::stable_sort(by_duration.begin(), by_duration.end(), [&](size_t a, size_t b) {
    return lifetimes[a].last - lifetimes[a].first > lifetimes[b].last - lifetimes[b].first;
  });
  orders.push_back(std::move(by_duration));
  std::vector<size_t> by_start = orders[0];
  std::stable_sort(by_start.begin(), by_start.end(),
                   [&](size_t a, size_t b) { return lifetimes[a].first < lifetimes[b].first; });
  orders.push_back(std::move(by_start));
  // Small graphs also try seeded random orders (deterministic).
  if (lifetimes.size() <= kShuffledOrdersUpTo) {
    std::mt19937 random(lifetimes.size());
    for (int i = 0; i < kShuffledOrders; ++i) {
      std::vector<size_t> shuffled = orders[0];
      std::shuffle(shuffled.begin(), shuffled.end(), random);
      orders.push_back(std::move(shuffled));
    }
  }
  Plan best;
  for (const std::vector<size_t>& order : orders) {
    Plan plan = GreedyInOrder(lifetimes, alignment, order);
    if (best.offsets.empty() || plan.arena_bytes < best.arena_bytes) best = std::move(plan);
  }
  if (best.offsets.empty()) best.offsets.assign(lifetimes.size(), 0);
  return best;
}

}  // namespace

const char* AlgorithmName(Algorithm algorithm) {
  return algorithm == Algorithm::kStorageGroups ? "storage_groups" : "greedy_by_size";
}

size_t AlignUp(size_t bytes, size_t alignment) {
  return (bytes + alignment - 1) / alignment * alignment;
}

Plan PlanMemory(Algorithm algorithm, const std::vector<Lifetime>& lifetimes, size_t alignment) {
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

absl::Status CheckPlan(const Plan& plan, const std::vector<Lifetime>& lifetimes, size_t alignment) {
  if (plan.offsets.size() != lifetimes.size())
    return absl::InvalidArgumentError("one offset per tensor expected");
  if (plan.arena_bytes % alignment != 0)
    return absl::InvalidArgumentError("arena size not aligned");
  for (size_t i = 0; i < lifetimes.size(); ++i) {
    if (plan.offsets[i] % alignment != 0)
      return absl::InvalidArgumentError(absl::StrCat("tensor ", i, " misaligned"));
    if (plan.offsets[i] + lifetimes[i].bytes > plan.arena_bytes) {
      return absl::InvalidArgumentError(absl::StrCat("tensor ", i, " ends past the arena"));
    }
    for (size_t j = 0; j < i; ++j) {
      const bool apart = plan.offsets[i] + lifetimes[i].bytes <= plan.offsets[j] ||
                         plan.offsets[j] + lifetimes[j].bytes <= plan.offsets[i];
      if (Overlap(lifetimes[i], lifetimes[j]) && !apart && lifetimes[i].bytes > 0 &&
          lifetimes[j].bytes > 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("tensors ", j, " and ", i, " are alive together and overlap"));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace memory
}  // namespace static_runtime
