// The int[2] arguments of ATen's 2-d pools (kernel_size, stride, padding,
// dilation) as the pools read them: one value for both dimensions, or two.
#ifndef STATIC_RUNTIME_OPS_NN_POOL_ARGUMENTS_H_
#define STATIC_RUNTIME_OPS_NN_POOL_ARGUMENTS_H_

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace static_runtime {
namespace ops {

// (height, width) from `list`; `fallback` for an empty list (a stride
// defaults to the kernel size); nullopt for more than two values.
inline std::optional<std::array<int64_t, 2>> PoolPair(
    const std::vector<int64_t>& list, std::optional<std::array<int64_t, 2>> fallback) {
  if (list.empty()) return fallback;
  if (list.size() == 1) return std::array<int64_t, 2>{list[0], list[0]};
  if (list.size() == 2) return std::array<int64_t, 2>{list[0], list[1]};
  return std::nullopt;
}

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_NN_POOL_ARGUMENTS_H_
