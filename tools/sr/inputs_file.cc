#include "tools/sr/inputs_file.h"

#include <fstream>
#include <iterator>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "caffe2/serialize/inline_container.h"
#include "errors/status_from_exception.h"
#include "load/archive_check.h"
#include "load/pickle_check.h"
#include "runtime/arguments.h"
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

absl::StatusOr<std::vector<c10::IValue>> ArgumentsFromInputs(std::vector<c10::IValue> values,
                                                             const c10::FunctionSchema& schema) {
  const std::vector<c10::Argument>& all = schema.arguments();
  const bool has_self = !all.empty() && all[0].name() == "self";
  std::vector<c10::Argument> arguments(all.begin() + (has_self ? 1 : 0), all.end());
  if (values.size() != 1 || !values[0].isGenericDict() || arguments.empty()) return values;
  c10::TypePtr first = arguments[0].type();
  if (const auto optional = first->cast<c10::OptionalType>()) first = optional->getElementType();
  if (first->kind() == c10::TypeKind::DictType || first->kind() == c10::TypeKind::AnyType) {
    return values;
  }
  const c10::impl::GenericDict dict = values[0].toGenericDict();
  if (dict.empty()) return values;
  KwargMap kwargs;
  for (const auto& entry : dict) {
    if (!entry.key().isString()) return values;
    kwargs.emplace(entry.key().toStringRef(), entry.value());
  }
  absl::StatusOr<std::vector<c10::IValue>> bound =
      BindArguments(schema.cloneWithArguments(std::move(arguments)), {}, kwargs);
  if (!bound.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the inputs are a dict of keyword arguments: ", bound.status().message()));
  }
  return bound;
}

}  // namespace sr
}  // namespace static_runtime
