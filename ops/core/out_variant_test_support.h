// Test support for out-variant kernels: building the node a registry key
// stands for, running a kernel on value slots that persist across calls, and
// drawing random tensors (shapes with 0 and 1, non-contiguous layouts) inside
// a RapidCheck property.
#ifndef STATIC_RUNTIME_OPS_CORE_OUT_VARIANT_TEST_SUPPORT_H_
#define STATIC_RUNTIME_OPS_CORE_OUT_VARIANT_TEST_SUPPORT_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ATen/ATen.h"
#include "ops/core/registry.h"
#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {
namespace testing {

// A graph holding one node of `op` (a registry key: a schema, or a node kind
// with `overload`), with one graph input per node input. For vararg ops the
// input types come from `inputs` and the node gets `num_outputs` outputs.
struct SingleNode {
  std::shared_ptr<torch::jit::Graph> graph;
  torch::jit::Node* node = nullptr;
  Kernel kernel;  // the kernel bound to `node`, when the test binds one
};
SingleNode MakeNode(const std::string& op, const std::string& overload,
                    const std::vector<c10::IValue>& inputs, size_t num_outputs);

// `node` of `graph` with the kernel `registry` binds it to, if any. With
// `expect_out_variant` that kernel must be an out variant (a test failure
// otherwise).
SingleNode BindOutVariant(const KernelRegistry& registry, std::shared_ptr<torch::jit::Graph> graph,
                          torch::jit::Node* node, bool expect_out_variant = true);

// A graph holding one `kind` node with one output, on the graph input "x"
// and then the constants `constants`, bound as BindOutVariant does.
SingleNode MakeNodeOnConstants(const KernelRegistry& registry, c10::Symbol kind,
                               const std::vector<c10::IValue>& constants,
                               bool expect_out_variant = true);

// The values of `node`'s inputs: `x` for the first, each other input's
// constant after it (for kernels that take nodes with constant arguments).
std::vector<c10::IValue> InputsAfterConstants(const torch::jit::Node* node, const at::Tensor& x);

// Value slots for one node: inputs first, then outputs, kept across calls.
class Slots {
 public:
  explicit Slots(size_t num_outputs) : num_outputs_(num_outputs) {}
  // Runs `kernel` on `inputs`; the output slots keep what earlier calls left.
  // Returns the exception message, or "" on success.
  std::string Run(const Kernel& kernel, const std::vector<c10::IValue>& inputs);
  const c10::IValue& Output(size_t i) const { return values_[num_inputs_ + i]; }
  size_t num_outputs() const { return num_outputs_; }

 private:
  size_t num_inputs_ = 0;
  size_t num_outputs_;
  std::vector<c10::IValue> values_;
};

// "" when `actual` (float32) is within `bound` of `exact` (float64, the
// kernel's inputs' exact result) everywhere; else how far it exceeds it.
std::string OutsideBound(const ErrorBound& bound, const std::vector<c10::IValue>& inputs,
                         const at::Tensor& exact, const at::Tensor& actual);

// A weighted operator (a convolution, ...) of its input, weight and bias, in
// the dtype they come in: ATen's op, which a kernel must match.
using WeightedOp = std::function<at::Tensor(const at::Tensor& x, const at::Tensor& weight,
                                            const c10::optional<at::Tensor>& bias)>;

// One call of `node`'s kernel on `x` (its first input; the others are the
// node's constants) in `slots`, checked against `op`: where ATen rejects `x`
// the kernel must fail too; else it must succeed with ATen's shape,
// contiguous, and its result and ATen's must both be within `bound` of the
// float64 result. Returns "" or what failed.
std::string CheckWeightedCall(const ErrorBound& bound, const SingleNode& node, Slots& slots,
                              const at::Tensor& x, const at::Tensor& weight,
                              const c10::optional<at::Tensor>& bias, const WeightedOp& op);

// "" when `kernel` fails on `inputs` (in `slots`) with a message that holds
// the start of ATen's, which `aten_call` throws; else what happened. For a
// kernel that must reject what ATen rejects, as ATen does.
std::string RejectsAsAten(const std::function<void()>& aten_call, Slots& slots,
                          const Kernel& kernel, const std::vector<c10::IValue>& inputs);

// Runs `kernel` on each input set alone, then on all of them at once from one
// thread each (50 calls per thread, own output slots): every call must
// succeed and give the single-threaded result. Returns one message per input
// set ("" when it held). For kernels that share state across threads, such
// as pre-packed weights.
std::vector<std::string> SameResultsOnSeveralThreads(
    const Kernel& kernel, const std::vector<std::vector<c10::IValue>>& input_sets);

// Random data drawn inside a RapidCheck property.
class Draw {
 public:
  Draw();
  int64_t Int(int64_t low, int64_t high);  // inclusive
  bool Bool();
  template <typename T>
  const T& OneOf(const std::vector<T>& choices) {
    return choices[Int(0, static_cast<int64_t>(choices.size()) - 1)];
  }
  // `rank` dims, each in [min_dim, max_dim].
  std::vector<int64_t> Shape(int64_t rank, int64_t min_dim, int64_t max_dim);
  // Random values of `dtype`: normal floats, small ints, bools; sometimes laid
  // out non-contiguously.
  at::Tensor Tensor(at::IntArrayRef shape, at::ScalarType dtype);
  at::Tensor ContiguousTensor(at::IntArrayRef shape, at::ScalarType dtype);
  // Ints in [low, high).
  at::Tensor Indices(at::IntArrayRef shape, int64_t low, int64_t high);
  // A shape that broadcasts with `shape` (some dims 1, maybe fewer dims).
  std::vector<int64_t> BroadcastableTo(at::IntArrayRef shape);

 private:
  at::Generator generator_;
};

// Exact equality of dtype, shape and values (NaN equals NaN). Returns "" or
// the first difference.
std::string Difference(const c10::IValue& expected, const c10::IValue& actual);

}  // namespace testing
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_CORE_OUT_VARIANT_TEST_SUPPORT_H_
