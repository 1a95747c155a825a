// Binding a call's positional and keyword arguments to a method's schema, the
// way Python does: positional first, then keywords by name, then defaults.
// Every argument is type-checked (a tensor against the dtype its declared type
// names, if any); the first problem comes back as an InvalidArgument naming the
// argument's index and name, the expected and the actual type. Containers
// whose static element types are looser than the schema's (a Dict[Any, Any]
// read from a torch.save file) are retyped when every element conforms.
#ifndef STATIC_RUNTIME_RUNTIME_ARGUMENTS_H_
#define STATIC_RUNTIME_RUNTIME_ARGUMENTS_H_

#include <string>
#include <unordered_map>
#include <vector>

#include "ATen/core/function_schema.h"
#include "ATen/core/ivalue.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace static_runtime {

// The same map type as torch::IMethod::IValueMap.
using KwargMap = std::unordered_map<std::string, c10::IValue>;

// Writes one value per schema argument, in schema order, into `slots` (as
// many as the schema has arguments; partly written when binding fails).
absl::Status BindArgumentsInto(const c10::FunctionSchema& schema,
                               absl::Span<const c10::IValue> args, const KwargMap& kwargs,
                               absl::Span<c10::IValue> slots);

// One value per schema argument, in schema order.
absl::StatusOr<std::vector<c10::IValue>> BindArguments(const c10::FunctionSchema& schema,
                                                       absl::Span<const c10::IValue> args,
                                                       const KwargMap& kwargs);

// A tensor's dtype and sizes ("Float[1, 3, 224, 224]"), or "undefined Tensor".
std::string DescribeTensor(const at::Tensor& tensor);

// A one-line description of a value for metadata and logs: a tensor as
// DescribeTensor, containers element by element, a scalar's type and value
// ("int=3").
std::string DescribeValue(const c10::IValue& value);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_RUNTIME_ARGUMENTS_H_
