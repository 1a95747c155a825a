// The flat value table: every value of a prepared graph (graph inputs,
// constants, node outputs and block parameters, sub-blocks included) gets one
// slot, laid out as [graph inputs | constants | everything else], so a run can
// bind inputs and clear intermediates with two contiguous sweeps while the
// constants stay put.
#ifndef STATIC_RUNTIME_RUNTIME_VALUE_LAYOUT_H_
#define STATIC_RUNTIME_RUNTIME_VALUE_LAYOUT_H_

#include <cstddef>
#include <limits>
#include <vector>

#include "ATen/core/ivalue.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "ops/core/registry.h"
#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

class ValueLayout {
 public:
  static constexpr size_t kMaxSlots = std::numeric_limits<ValueIndex>::max();

  // A ResourceExhausted error when the graph has more than `max_slots` values.
  static absl::StatusOr<ValueLayout> Build(const torch::jit::Graph& graph,
                                           size_t max_slots = kMaxSlots);

  // The slot of a value of the graph (a programming error for any other).
  ValueIndex SlotOf(const torch::jit::Value* value) const;

  size_t num_slots() const { return num_slots_; }
  size_t num_inputs() const { return num_inputs_; }
  // Slots [num_inputs, constants_end) hold the constants, in this order.
  size_t constants_end() const { return num_inputs_ + constants_.size(); }
  const std::vector<c10::IValue>& constants() const { return constants_; }

 private:
  absl::flat_hash_map<const torch::jit::Value*, ValueIndex> slots_;
  std::vector<c10::IValue> constants_;
  size_t num_inputs_ = 0;
  size_t num_slots_ = 0;
};

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_RUNTIME_VALUE_LAYOUT_H_
