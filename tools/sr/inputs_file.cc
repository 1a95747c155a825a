#include "tools/sr/inputs_file.h"

#include <fstream>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "errors/exception_message.h"
#include "errors/status_from_exception.h"
#include "torch/csrc/jit/serialization/pickle.h"

namespace static_runtime {
namespace sr {

absl::StatusOr<std::vector<c10::IValue>> LoadInputsFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return absl::NotFoundError(absl::StrCat("cannot open inputs file ", path));
  const std::vector<char> bytes((std::istreambuf_iterator<char>(file)),
                                std::istreambuf_iterator<char>());
  c10::IValue value;
  try {
    value = torch::jit::pickle_load(bytes);
  } catch (const std::exception& e) {
    const std::string message = ExceptionMessage(e);
    if (message.find("Unknown opcode for unpickling") != std::string::npos &&
        message.find(": 115") != std::string::npos) {
      // Python pickles a one-entry dict with SETITEM, which LibTorch 1.13's
      // unpickler does not know.
      return absl::InvalidArgumentError(
          absl::StrCat(path,
                       " holds a dict with a single entry, which LibTorch 1.13 cannot read "
                       "(pickle opcode SETITEM); save such dicts with two or more entries"));
    }
    return StatusFromException(e, absl::StrCat(path, " is not a file written by torch.save: "),
                               absl::StatusCode::kInvalidArgument);
  }
  if (value.isTuple()) return value.toTupleRef().elements().vec();
  if (value.isList()) return value.toList().vec();
  return std::vector<c10::IValue>{value};
}

}  // namespace sr
}  // namespace static_runtime
