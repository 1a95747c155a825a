// NodeIO: one node's view of the runtime's flat value table during a call:
// its input and output slots by position. What a kernel reads and writes,
// and what a NodeObserver (runtime/types.h) is shown, read-only, before and
// after each call.
#ifndef STATIC_RUNTIME_OPS_CORE_NODE_IO_H_
#define STATIC_RUNTIME_OPS_CORE_NODE_IO_H_

#include <cstddef>
#include <cstdint>

#include "ATen/core/ivalue.h"
#include "absl/types/span.h"

namespace static_runtime {

// Index of a value slot in the runtime's flat value table.
using ValueIndex = uint32_t;

class NodeIO {
 public:
  NodeIO(c10::IValue* values, absl::Span<const ValueIndex> inputs,
         absl::Span<const ValueIndex> outputs)
      : values_(values), inputs_(inputs), outputs_(outputs) {}

  size_t num_inputs() const { return inputs_.size(); }
  size_t num_outputs() const { return outputs_.size(); }
  const c10::IValue& Input(size_t i) const { return values_[inputs_[i]]; }
  c10::IValue& Output(size_t i) { return values_[outputs_[i]]; }
  const c10::IValue& Output(size_t i) const { return values_[outputs_[i]]; }
  // Where the slots are: for a kernel that runs other kernels on them. Not
  // on a const NodeIO (what an observer is shown), which reads its slots
  // only.
  c10::IValue* values() { return values_; }
  ValueIndex InputIndex(size_t i) const { return inputs_[i]; }
  ValueIndex OutputIndex(size_t i) const { return outputs_[i]; }

 private:
  c10::IValue* values_;
  absl::Span<const ValueIndex> inputs_;
  absl::Span<const ValueIndex> outputs_;
};

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_CORE_NODE_IO_H_
