#include "tools/sr/inputs_file.h"

#include <fstream>
#include <iterator>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "caffe2/serialize/inline_container.h"
#include "errors/status_from_exception.h"
#include "load/archive_check.h"
#include "load/pickle_check.h"
#include "torch/csrc/jit/serialization/unpickler.h"

namespace static_runtime {
namespace sr {
namespace {

// The value torch.save wrote into the zip archive `bytes`: its data.pkl with
// one-item lists and one-entry dicts rewritten into opcodes LibTorch 1.13's
// unpickler knows (load/pickle_check.h), its tensors read from data/<key>.
// Throws on what is not such an archive.
c10::IValue Unpickle(const std::string& bytes) {
  std::istringstream stream(bytes);
  caffe2::serialize::PyTorchStreamReader archive(&stream);
  const auto [pickle_data, pickle_size] = archive.getRecord("data.pkl");
  const absl::StatusOr<std::string> pickle = WithPluralOpcodes(
      absl::string_view(static_cast<const char*>(pickle_data.get()), pickle_size));
  if (!pickle.ok()) throw std::runtime_error(std::string(pickle.status().message()));
  torch::jit::Unpickler unpickler(
      PickleReader(*pickle), /*type_resolver=*/nullptr, /*obj_loader=*/nullptr,
      [&](const std::string& key) { return std::get<0>(archive.getRecord("data/" + key)); },
      c10::Device(c10::kCPU));
  return unpickler.parse_ivalue();
}

}  // namespace

absl::StatusOr<std::vector<c10::IValue>> LoadInputsFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return absl::NotFoundError(absl::StrCat("cannot open inputs file ", path));
  const std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (absl::Status archive = CheckArchive(bytes); !archive.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, " is not a file written by torch.save: ", archive.message()));
  }
  c10::IValue value;
  try {
    value = Unpickle(bytes);
  } catch (const std::exception& e) {
    return StatusFromException(e, absl::StrCat(path, " is not a file written by torch.save: "),
                               absl::StatusCode::kInvalidArgument);
  }
  if (value.isTuple()) return value.toTupleRef().elements().vec();
  if (value.isList()) return value.toList().vec();
  return std::vector<c10::IValue>{value};
}

}  // namespace sr
}  // namespace static_runtime
