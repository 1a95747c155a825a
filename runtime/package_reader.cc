// LoadPackage(Bytes) and ReadPackageMetadata: reads and
// checks a compiled package (runtime/package.h).
#include <cstring>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "errors/exception_message.h"
#include "errors/status_from_exception.h"
#include "errors/status_macros.h"
#include "load/archive_check.h"
#include "load/graph_serialization.h"
#include "load/load.h"
#include "load/pickle_check.h"
#include "memory/planner.h"
#include "nlohmann/json.hpp"
#include "ops/onednn/onednn.h"
#include "passes/check_static_runnable.h"
#include "passes/prepare.h"
#include "runtime/module_state.h"
#include "runtime/package.h"
#include "runtime/package_format.h"
#include "runtime/static_module.h"
#include "torch/csrc/jit/frontend/function_schema_parser.h"
#include "torch/csrc/jit/serialization/unpickler.h"
#include "torch/custom_class.h"

namespace static_runtime {
namespace {

using Json = nlohmann::json;
using package_format::KernelLines;
using package_format::kFormatName;
using package_format::kGraph;
using package_format::kKernels;
using package_format::kMaxRecordBytes;
using package_format::kMemoryPlan;
using package_format::kMetadata;
using package_format::kPacks;
using package_format::kSchema;
using package_format::kValues;

// A package's records by name (the archive's top folder stripped): views
// into the bytes of the package.
using Records = absl::flat_hash_map<std::string, absl::string_view>;

absl::StatusOr<Records> IndexRecords(absl::string_view bytes) {
  absl::StatusOr<std::vector<ArchiveRecord>> index = IndexArchive(bytes);
  if (!index.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("damaged package: ", index.status().message()));
  }
  Records records;
  for (const ArchiveRecord& record : *index) {
    const size_t slash = record.name.find('/');
    if (slash == std::string::npos || !record.stored) {
      return absl::InvalidArgumentError(absl::StrCat(
          "record '", record.name, "' is not a stored record under the archive's folder"));
    }
    records[record.name.substr(slash + 1)] = record.data;
  }
  return records;
}

absl::StatusOr<std::string> ReadRecord(const Records& records, const std::string& name) {
  const auto found = records.find(name);
  if (found == records.end()) {
    return absl::InvalidArgumentError(absl::StrCat("the package has no record ", name));
  }
  return std::string(found->second);
}

// The values a package holds may be TorchBind objects (packed quantized
// weights) that pickle themselves; no other class is known to a package.
// The pickle also names the element types of typed containers (a packed
// linear's state holds a List[Optional[Tensor]]): those are parsed as types.
c10::StrongTypePtr ResolveType(const c10::QualifiedName& name) {
  if (const c10::ClassTypePtr type = torch::getCustomClass(name.qualifiedName())) {
    return c10::StrongTypePtr(nullptr, type);
  }
  c10::TypePtr type;
  try {
    type = torch::jit::Unpickler::defaultTypeParser(name.qualifiedName());
  } catch (const std::exception&) {
    type = nullptr;
  }
  if (type == nullptr || type->kind() == c10::TypeKind::ClassType) {
    throw std::runtime_error(absl::StrCat("values.pkl names the class ", name.qualifiedName(),
                                          ", which is not a TorchBind class of this LibTorch"));
  }
  return c10::StrongTypePtr(nullptr, type);
}

// The object of a TorchBind class from its pickled state: its __setstate__,
// as torch.jit.load calls it (quantized weights are packed then, for the
// quantized engine current).
c10::intrusive_ptr<c10::ivalue::Object> LoadCustomClassObject(const c10::StrongTypePtr& type,
                                                              c10::IValue state) {
  const c10::ClassTypePtr cls = type.type_->expect<c10::ClassType>();
  torch::jit::Function* setstate = cls->findMethod("__setstate__");
  if (setstate == nullptr) {
    throw std::runtime_error(
        absl::StrCat("the class ", cls->repr_str(), " in values.pkl has no __setstate__"));
  }
  auto object = c10::ivalue::Object::create(type, /*numSlots=*/1);
  torch::jit::Stack stack = {object, std::move(state)};
  setstate->run(stack);
  return object;
}

// The value table: values.pkl unpickled, its tensors' storages the values/<n>
// records themselves (no copy), each kept alive by `buffer`. Every tensor
// must lie within its record.
absl::StatusOr<std::vector<c10::IValue>> ReadValues(
    const Records& records, const std::shared_ptr<const std::string>& buffer) {
  const auto pickle = records.find(absl::StrCat(kValues, ".pkl"));
  if (pickle == records.end()) return absl::InvalidArgumentError("the package has no values.pkl");
  const absl::string_view pickled = pickle->second;
  RETURN_IF_ERROR(CheckPickle(pickled));
  absl::flat_hash_map<const void*, size_t> record_bytes;
  torch::jit::Unpickler unpickler(
      PickleReader(pickled), ResolveType, LoadCustomClassObject,
      [&](const std::string& key) {
        const auto record = records.find(absl::StrCat(kValues, "/", key));
        if (record == records.end()) {
          throw std::runtime_error(absl::StrCat("values.pkl names a missing record ", key));
        }
        void* data = const_cast<char*>(record->second.data());
        record_bytes[data] = record->second.size();
        return at::DataPtr(
            data, new std::shared_ptr<const std::string>(buffer),
            [](void* keep) { delete static_cast<std::shared_ptr<const std::string>*>(keep); },
            c10::Device(c10::kCPU));
      },
      c10::Device(c10::kCPU));
  const c10::IValue values = unpickler.parse_ivalue();
  if (!values.isTuple()) return absl::InvalidArgumentError("values.pkl is not a tuple");
  absl::Status bounds = absl::OkStatus();
  values.visit([&](const c10::IValue& value) {
    if (!value.isTensor() || !bounds.ok()) return false;
    const at::Tensor& tensor = value.toTensor();
    const auto record = record_bytes.find(tensor.storage().data());
    const size_t needed = at::detail::computeStorageNbytes(
        tensor.sizes(), tensor.strides(), tensor.itemsize(), tensor.storage_offset());
    if (record == record_bytes.end() || tensor.storage().nbytes() > record->second ||
        needed > tensor.storage().nbytes()) {
      bounds = absl::InvalidArgumentError("values.pkl has a tensor beyond its record");
    }
    return false;
  });
  RETURN_IF_ERROR(bounds);
  return values.toTupleRef().elements().vec();
}

absl::StatusOr<Json> ParseJson(const std::string& text, const char* record) {
  Json json = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(record, " is not a JSON object"));
  }
  return json;
}

// The pre-packed weights of packed.json, by the data of the value-table
// tensor each was packed from; the copies are the packed/<n> records in
// place.
absl::StatusOr<onednn::PreloadedPacks::Map> ReadPacks(const Records& records, const Json& packs,
                                                      const std::vector<c10::IValue>& table) {
  onednn::PreloadedPacks::Map by_weight;
  const auto entries = packs.find("packs");
  if (entries == packs.end() || !entries->is_array()) {
    return absl::InvalidArgumentError("packed.json has no packs");
  }
  for (const Json& entry : *entries) {
    const auto value = entry.find("value");
    const auto record = entry.find("record");
    const auto format = entry.find("format");
    const bool well_formed = entry.is_object() && value != entry.end() &&
                             value->is_number_unsigned() && value->get<uint64_t>() < table.size() &&
                             table[value->get<uint64_t>()].isTensor() && record != entry.end() &&
                             record->is_string() && records.contains(record->get<std::string>()) &&
                             format != entry.end() && format->is_string() &&
                             format->get<std::string>().size() == 2 * sizeof(dnnl_memory_desc_t) &&
                             absl::c_all_of(format->get<std::string>(), absl::ascii_isxdigit);
    if (!well_formed) {
      return absl::InvalidArgumentError(
          absl::StrCat("packed.json has a malformed entry: ", entry.dump()));
    }
    onednn::PackedCopy copy;
    const std::string format_bytes = absl::HexStringToBytes(format->get<std::string>());
    std::memcpy(&copy.format, format_bytes.data(), sizeof(copy.format));
    const absl::string_view data = records.at(record->get<std::string>());
    copy.data = data.data();
    copy.bytes = data.size();
    by_weight[table[value->get<uint64_t>()].toTensor().data_ptr()].push_back(copy);
  }
  return by_weight;
}

// The package's metadata.json, parsed.
absl::StatusOr<Json> ReadMetadata(const Records& records) {
  ASSIGN_OR_RETURN(std::string text, ReadRecord(records, kMetadata));
  return ParseJson(text, kMetadata);
}

// The metadata's checks: format, versions. FailedPrecondition on a mismatch.
absl::Status CheckVersions(const Json& metadata) {
  const auto string_field = [&](const char* key) -> std::string {
    const auto it = metadata.find(key);
    return it != metadata.end() && it->is_string() ? it->get<std::string>() : "";
  };
  if (string_field("format") != kFormatName) {
    return absl::InvalidArgumentError("metadata.json does not describe a static_runtime package");
  }
  const auto version = metadata.find("format_version");
  if (version == metadata.end() || !version->is_number_integer() ||
      version->get<int64_t>() != kPackageFormatVersion) {
    return absl::FailedPreconditionError(
        absl::StrCat("package format version ", version == metadata.end() ? "?" : version->dump(),
                     ", this library reads version ", kPackageFormatVersion));
  }
  if (string_field("library_version") != kLibraryVersion) {
    return absl::FailedPreconditionError(absl::StrCat("package written by static_runtime ",
                                                      string_field("library_version"), ", this is ",
                                                      kLibraryVersion));
  }
  if (string_field("libtorch_version") != LibTorchVersion()) {
    return absl::FailedPreconditionError(absl::StrCat("package written with LibTorch ",
                                                      string_field("libtorch_version"),
                                                      ", this is ", LibTorchVersion()));
  }
  return absl::OkStatus();
}

absl::StatusOr<Options> OptionsFrom(const Json& metadata) {
  const auto options_json = metadata.find("options");
  if (options_json == metadata.end() || !options_json->is_object()) {
    return absl::InvalidArgumentError("metadata.json has no options");
  }
  Options options;
  for (const BoolOption& option : BoolOptions()) {
    const auto value = options_json->find(option.name);
    if (value == options_json->end()) continue;  // an option newer than the package: its default
    if (!value->is_boolean()) {
      return absl::InvalidArgumentError(
          absl::StrCat("metadata.json has a non-boolean option ", option.name));
    }
    options.*option.member = value->get<bool>();
  }
  RETURN_IF_ERROR(ValidateOptions(options));
  return options;
}

absl::StatusOr<std::vector<memory::TensorRecord>> RecordsFrom(const Json& plan) {
  const auto records_json = plan.find("records");
  if (records_json == plan.end() || !records_json->is_array()) {
    return absl::InvalidArgumentError("memory_plan.json has no records");
  }
  std::vector<memory::TensorRecord> records;
  for (const Json& entry : *records_json) {
    const auto bytes = entry.find("bytes");
    const auto dtype = entry.find("dtype");
    if (!entry.is_object() || bytes == entry.end() || !bytes->is_number_unsigned() ||
        bytes->get<uint64_t>() > kMaxRecordBytes || dtype == entry.end() ||
        !(dtype->is_null() ||
          (dtype->is_number_unsigned() &&
           dtype->get<uint64_t>() < static_cast<uint64_t>(c10::ScalarType::NumOptions)))) {
      return absl::InvalidArgumentError(
          absl::StrCat("memory_plan.json has a malformed record: ", entry.dump()));
    }
    memory::TensorRecord record;
    record.bytes = bytes->get<uint64_t>();
    if (!dtype->is_null()) record.dtype = static_cast<c10::ScalarType>(dtype->get<int>());
    records.push_back(record);
  }
  return records;
}

}  // namespace

namespace {

// LoadPackage's work on the package's bytes, which its tensors keep alive.
absl::StatusOr<StaticModule::Ptr> FromPackageBuffer(std::shared_ptr<const std::string> buffer) {
  ASSIGN_OR_RETURN(Records records, IndexRecords(*buffer));
  try {
    ASSIGN_OR_RETURN(Json metadata, ReadMetadata(records));
    RETURN_IF_ERROR(CheckVersions(metadata));
    ASSIGN_OR_RETURN(Options options, OptionsFrom(metadata));

    ASSIGN_OR_RETURN(std::vector<c10::IValue> table, ReadValues(records, buffer));
    ASSIGN_OR_RETURN(std::string graph_text, ReadRecord(records, kGraph));
    ASSIGN_OR_RETURN(std::shared_ptr<torch::jit::Graph> graph, DeserializeGraph(graph_text, table));
    RETURN_IF_ERROR(CheckStaticRunnable(graph));
    ASSIGN_OR_RETURN(std::string schema_text, ReadRecord(records, kSchema));
    c10::FunctionSchema schema = torch::jit::parseSchema(schema_text);
    if (schema.arguments().size() != graph->inputs().size()) {
      return absl::InvalidArgumentError(absl::StrCat("schema.txt has ", schema.arguments().size(),
                                                     " arguments, the graph ",
                                                     graph->inputs().size(), " inputs"));
    }

    ASSIGN_OR_RETURN(std::string packs_text, ReadRecord(records, absl::StrCat(kPacks, ".json")));
    ASSIGN_OR_RETURN(Json packs_json, ParseJson(packs_text, "packed.json"));
    ASSIGN_OR_RETURN(onednn::PreloadedPacks::Map packs, ReadPacks(records, packs_json, table));
    const onednn::PreloadedPacks preloaded(std::move(packs));
    ASSIGN_OR_RETURN(
        std::shared_ptr<StaticModule> module,
        BindKernels(PreparedGraph{std::move(graph), std::move(schema), /*self=*/c10::IValue()},
                    options));
    ModuleState& state = ModuleState::MutableOf(*module);
    ASSIGN_OR_RETURN(std::string kernels, ReadRecord(records, kKernels));
    if (kernels != KernelLines(state.plan)) {
      return absl::FailedPreconditionError(
          "this build binds the package's nodes to other kernels than the build that wrote it");
    }
    ASSIGN_OR_RETURN(std::string plan_text, ReadRecord(records, kMemoryPlan));
    ASSIGN_OR_RETURN(Json plan, ParseJson(plan_text, kMemoryPlan));
    ASSIGN_OR_RETURN(std::vector<memory::TensorRecord> memory_records, RecordsFrom(plan));
    if (!memory_records.empty() && memory_records.size() != state.managed_slots.size()) {
      return absl::InvalidArgumentError(absl::StrCat("memory_plan.json has ", memory_records.size(),
                                                     " records for ", state.managed_slots.size(),
                                                     " managed tensors"));
    }
    state.initial_records = std::move(memory_records);
    const auto planned_for = metadata.find("planned_for");
    if (planned_for != metadata.end() && planned_for->is_array()) {
      for (const Json& input : *planned_for) {
        if (input.is_string()) state.planned_inputs.push_back(input.get<std::string>());
      }
    }
    return StaticModule::Ptr(std::move(module));
  } catch (const std::exception& e) {
    return StatusFromException(e, "malformed package: ", absl::StatusCode::kInvalidArgument,
                               MessageLines::kFirstLine);
  }
}

}  // namespace

absl::StatusOr<StaticModule::Ptr> LoadPackage(const std::string& path) {
  ASSIGN_OR_RETURN(std::string bytes, ReadModelFile(path));
  absl::StatusOr<StaticModule::Ptr> module =
      FromPackageBuffer(std::make_shared<const std::string>(std::move(bytes)));
  if (!module.ok()) {
    return absl::Status(module.status().code(),
                        absl::StrCat("package '", path, "': ", module.status().message()));
  }
  return module;
}

absl::StatusOr<StaticModule::Ptr> LoadPackageBytes(absl::string_view bytes) {
  return FromPackageBuffer(std::make_shared<const std::string>(bytes));
}

absl::StatusOr<std::string> ReadPackageMetadata(const std::string& path) {
  ASSIGN_OR_RETURN(std::string bytes, ReadModelFile(path));
  absl::StatusOr<Records> records = IndexRecords(bytes);
  if (!records.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("package '", path, "': ", records.status().message()));
  }
  ASSIGN_OR_RETURN(Json metadata, ReadMetadata(*records));
  absl::Status versions = CheckVersions(metadata);
  if (!versions.ok() && !absl::IsFailedPrecondition(versions)) return versions;
  return ReadRecord(*records, kMetadata);
}

}  // namespace static_runtime
