// The reference the static runtime must agree with: running a graph on the
// TorchScript JIT interpreter, and comparing two output structures (container
// kinds, lengths, dict keys, dtypes, shapes, values with dtype-aware
// tolerances) with a message that names the first difference.
#ifndef STATIC_RUNTIME_VERIFY_REFERENCE_H_
#define STATIC_RUNTIME_VERIFY_REFERENCE_H_

#include <memory>
#include <string>
#include <vector>

#include "ATen/core/ivalue.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {
namespace reference {

// Runs `graph` on the JIT interpreter (no graph optimizations) and returns
// its outputs: one IValue, or a tuple when the graph has several outputs.
c10::IValue RunInterpreter(const std::shared_ptr<torch::jit::Graph>& graph,
                           std::vector<c10::IValue> inputs);

enum class Tolerance {
  kDtypeDefault,  // floats within rtol/atol that depend on the dtype
  kBitwise,       // floats equal (NaN matches NaN)
  // kDtypeDefault's bound plus 1e-3 of the largest magnitude in the
  // expected tensor: for a whole model whose kernels each have a declared
  // error bound, or whose batch norms were folded (Options::prepack_weights),
  // where the last bits of many layers compound.
  kWholeModel,
};

// OK when `actual` matches `expected`; otherwise the first difference, with
// its path (e.g. "output[1]['key'][0]: value at index 3: 1.5 vs 1.7").
// Floating point values match within `tolerance`; integers and bools must be
// equal.
absl::Status Compare(const c10::IValue& expected, const c10::IValue& actual,
                     Tolerance tolerance = Tolerance::kDtypeDefault);

// The largest absolute difference between the numbers of `expected` and
// `actual` (tensor elements, floats and ints): 0 when equal, NaN against NaN
// and an infinity against itself equal, NaN against a number infinite. An
// error (naming the path) when they differ in structure, dtype or shape.
absl::StatusOr<double> MaxAbsDifference(const c10::IValue& expected, const c10::IValue& actual);

// A deep copy: tensors cloned with their layout (strides and storage
// offset, also of views that are not dense), containers rebuilt; what is one
// object in `value` (or across `values`: a tensor passed twice, an If's
// result returned as two values) is one object in the copy, as Python's
// copy.deepcopy makes it, so `is` and in-place writes see the same aliasing.
// For checking that inputs were not modified by a run, and for running the
// reference on inputs laid out as the runtime's.
c10::IValue DeepCopy(const c10::IValue& value);
std::vector<c10::IValue> DeepCopy(const std::vector<c10::IValue>& values);

// The shapes of the tensors in `value`, nested like it (other values printed),
// for failure messages: "([2, 3], [4], 7)".
std::string Shapes(const c10::IValue& value);

// Exact equality (bitwise values) of two structures, for "not modified" checks.
bool ExactlyEqual(const c10::IValue& a, const c10::IValue& b);

// Nested tensors (torch.nested; nn.TransformerEncoder's fast path passes
// them between layers) are compared as their padded form, after their
// components' sizes: `t` padded with zeros when nested, else `t`.
at::Tensor PaddedIfNested(const at::Tensor& t);

// `t` in float64: a nested tensor of the same components, or t.to(kDouble).
at::Tensor ToDouble(const at::Tensor& t);

}  // namespace reference
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_VERIFY_REFERENCE_H_
