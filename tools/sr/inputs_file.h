// Model inputs from a file written by Python's `torch.save`: a tuple or list
// becomes the positional arguments (tensors, scalars, nested lists, tuples
// and dicts as saved); any other single value is the only argument. Read with
// LibTorch's pickle loader; errors name the file and the problem. LibTorch
// 1.13 cannot read a dict with exactly one entry (Python pickles it with an
// opcode it lacks); that gets its own error message.
#ifndef STATIC_RUNTIME_TOOLS_SR_INPUTS_FILE_H_
#define STATIC_RUNTIME_TOOLS_SR_INPUTS_FILE_H_

#include <string>
#include <vector>

#include "ATen/core/ivalue.h"
#include "absl/status/statusor.h"

namespace static_runtime {
namespace sr {

absl::StatusOr<std::vector<c10::IValue>> LoadInputsFile(const std::string& path);

}  // namespace sr
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_TOOLS_SR_INPUTS_FILE_H_
