// Model inputs from a file written by Python's `torch.save`: a tuple or list
// becomes the positional arguments (tensors, scalars, nested lists, tuples
// and dicts as saved); any other single value is the only argument. Read with
// LibTorch's pickle loader; errors name the file and the problem. LibTorch
// 1.13 cannot read a dict with exactly one entry (Python pickles it with an
// opcode it lacks); that gets its own error message. A dict of keyword
// arguments is mapped onto the model's schema by ArgumentsFromInputs.
#ifndef STATIC_RUNTIME_TOOLS_SR_INPUTS_FILE_H_
#define STATIC_RUNTIME_TOOLS_SR_INPUTS_FILE_H_

#include <string>
#include <vector>

#include "ATen/core/function_schema.h"
#include "ATen/core/ivalue.h"
#include "absl/status/statusor.h"

namespace static_runtime {
namespace sr {

absl::StatusOr<std::vector<c10::IValue>> LoadInputsFile(const std::string& path);

// The positional arguments of the method `schema` describes (its first
// argument, self, left out) from an inputs file's values: the values as they
// are, unless the file holds one dict with string keys and the method's
// first argument does not take a dict (or an optional one, or Any). Then the dict holds the keyword
// arguments (torch.save({"input_ids": ..., "attention_mask": ...})), bound
// as a call's keyword arguments are (runtime/arguments.h' BindArguments):
// their values in the schema's order, the defaults of those it leaves out.
// InvalidArgument naming a key that is no argument, an argument without a
// default that the dict leaves out, or a value of the wrong type.
absl::StatusOr<std::vector<c10::IValue>> ArgumentsFromInputs(std::vector<c10::IValue> values,
                                                             const c10::FunctionSchema& schema);

}  // namespace sr
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_TOOLS_SR_INPUTS_FILE_H_
