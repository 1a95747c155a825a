// One differential run, as the differential harness (verify/differential_test)
// and the random graph property (fuzz/random_graph_test) do it: the JIT
// interpreter and the static runtime each run on a deep copy of the inputs
// (a model may write to its inputs), and the run is OK only if the whole
// outputs match (reference::Compare, within the dtype's tolerance: preparation
// folds batch norm into convolutions, which changes rounding), the runtime
// left its copy of the inputs exactly as the JIT left its own (unmodified,
// unless the model writes to them) and, after ReleaseOutputs, holds no
// value. The error names the first problem; a difference of the outputs is
// reported only when nothing else is wrong, and carries
// kOutputsDifferPayload. CheckNodesAgainstJit is the bit-exact complement.
#ifndef STATIC_RUNTIME_VERIFY_RUN_CHECK_H_
#define STATIC_RUNTIME_VERIFY_RUN_CHECK_H_

#include <vector>

#include "ATen/core/ivalue.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/static_runtime.h"
#include "torch/csrc/jit/api/module.h"
#include "verify/reference.h"

namespace static_runtime {
namespace golden {

enum class WhenTheJitRaises {
  kFail,           // the model must run
  kExpectAnError,  // the static runtime must return an error too
};

// With `output`, the runtime's output is left there (the caller may hold it
// across later runs; with managed output tensors it is released, so empty).
// With `wrote_inputs`, whether the (successful) run changed its inputs.
// Outputs are compared within `tolerance` (verify/reference.h). With
// `jit_output`, the JIT's output is left there. The JIT runs the module's
// forward (an overloaded forward, as nn.LSTM's: its first overload, as the
// runtime does). The runtime's run starts from the default random
// generator's state the JIT's started from, so a model that draws random
// numbers in the same order gets the same draws.
// CheckRunAgainstJit's error when the outputs differ (not a failed run,
// changed inputs or values held after it) carries this payload.
inline constexpr char kOutputsDifferPayload[] = "static_runtime/outputs-differ";
bool OutputsDiffer(const absl::Status& status);
// Its error when the JIT raised (under WhenTheJitRaises::kFail) carries
// this one: the inputs, not the runtime, are at fault.
inline constexpr char kJitRaisedPayload[] = "static_runtime/jit-raised";
bool JitRaised(const absl::Status& status);

absl::Status CheckRunAgainstJit(
    torch::jit::Module& module, StaticRuntime& runtime, const std::vector<c10::IValue>& inputs,
    WhenTheJitRaises when_the_jit_raises, c10::IValue* output = nullptr,
    bool* wrote_inputs = nullptr,
    reference::Tolerance tolerance = reference::Tolerance::kDtypeDefault,
    c10::IValue* jit_output = nullptr);

// The strict check, node by node: runs the model on `runtime` and, for every
// node bound to a kernel of our own (out variant or native; fallbacks are the
// JIT's operators), runs the node's JIT operator on a copy of the inputs the
// kernel saw. Its outputs that have uses must equal the operator's bit for
// bit (an unused output, such as embedding_bag's offset2bag, may be left
// empty), unless the kernel declares an error bound (ops/core/registry.h): then
// they must lie within that bound of the operator's float64 result. So a
// kernel's tolerance applies to its own nodes only. And every node (its
// kernel or a fallback) must read each tensor as the node that made it left
// it (dtype, sizes and bytes), unless a node in between writes to tensors in
// place: memory recycled while a value is in use fails here even where
// every kernel computes right from what it reads.
//
// When this check passes, the run is the JIT's operators' own, but for the
// declared bounds of the `bounded` node calls: outputs that differ from the
// JIT's beyond them come from those bounds (carried through a sort, a top-k
// or a threshold, say), not from the runtime.
struct NodeCheckCounts {
  int checked = 0;  // node calls checked against their JIT operator
  int bounded = 0;  // of those, held to a kernel's declared error bound
};
absl::StatusOr<NodeCheckCounts> CheckNodesAgainstJit(StaticRuntime& runtime,
                                                     const std::vector<c10::IValue>& inputs);

}  // namespace golden
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_VERIFY_RUN_CHECK_H_
