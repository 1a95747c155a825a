// SavePackage: writes a compiled package (runtime/package.h).
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <random>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "caffe2/serialize/inline_container.h"
#include "errors/status_from_exception.h"
#include "errors/status_macros.h"
#include "load/graph_serialization.h"
#include "memory/planner.h"
#include "nlohmann/json.hpp"
#include "ops/onednn/onednn.h"
#include "passes/prepared_forks.h"
#include "runtime/forked_call.h"
#include "runtime/module_state.h"
#include "runtime/package.h"
#include "runtime/package_format.h"
#include "runtime/static_module.h"
#include "torch/csrc/jit/frontend/function_schema_parser.h"
#include "torch/csrc/jit/serialization/pickler.h"
#include "torch/custom_class.h"
#include "torch/version.h"

namespace static_runtime {
namespace {

using Json = nlohmann::json;
using package_format::KernelLines;
using package_format::kFormatName;
using package_format::kGraph;
using package_format::kKernels;
using package_format::kMemoryPlan;
using package_format::kMetadata;
using package_format::kPacks;
using package_format::kSchema;
using package_format::kValues;

// A TorchBind object (LibTorch's packed quantized weights, say) that pickles
// itself: its class has __getstate__ and __setstate__, and loading calls the
// latter (as torch.jit.load does; packing for the quantized engine current
// then).
bool PicklesItself(const c10::IValue& value) {
  if (!value.isObject()) return false;
  const c10::ClassTypePtr type = value.toObjectRef().type();
  return type->findMethod("__getstate__") != nullptr &&
         type->findMethod("__setstate__") != nullptr &&
         torch::getCustomClass(type->name()->qualifiedName()) != nullptr;
}

// Whether `value` holds something a package cannot: module objects (state
// only the module has), capsules, futures.
bool HoldsObject(const c10::IValue& value) {
  bool found = false;
  value.visit([&found](const c10::IValue& element) {
    if (PicklesItself(element)) return true;  // its state is its own business
    found = found || element.isObject() || element.isCapsule() || element.isFuture();
    return found;
  });
  return found;
}

Json DescribeSchema(const c10::FunctionSchema& schema, const torch::jit::Graph& graph) {
  Json inputs = Json::array();
  for (const c10::Argument& argument : schema.arguments()) {
    inputs.push_back({{"name", argument.name()}, {"type", argument.type()->annotation_str()}});
  }
  Json outputs = Json::array();
  for (const torch::jit::Value* output : graph.outputs()) {
    outputs.push_back({{"type", output->type()->annotation_str()}});
  }
  return {{"inputs", inputs}, {"outputs", outputs}};
}

// Writes the archive to `path` through a temporary file renamed over it, so
// no reader ever sees a partial package.
absl::Status WriteAtomically(
    const std::string& path,
    const std::function<void(caffe2::serialize::PyTorchStreamWriter&)>& fill) {
  std::random_device random;
  const std::string temporary = absl::StrCat(path, ".tmp.", getpid(), ".", random(), random());
  {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    if (!file) {
      return absl::PermissionDeniedError(absl::StrCat("cannot create '", temporary, "'"));
    }
    try {
      caffe2::serialize::PyTorchStreamWriter writer([&file](const void* data, size_t size) {
        file.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
        return file ? size : 0;
      });
      fill(writer);
      writer.writeEndOfFile();
    } catch (const std::exception& e) {
      file.close();
      std::remove(temporary.c_str());
      return StatusFromException(e, absl::StrCat("cannot write '", temporary, "': "),
                                 absl::StatusCode::kInternal);
    }
    file.close();
    if (!file) {
      std::remove(temporary.c_str());
      return absl::ResourceExhaustedError(absl::StrCat("cannot write '", temporary, "'"));
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(temporary.c_str());
    return absl::PermissionDeniedError(
        absl::StrCat("cannot rename '", temporary, "' to '", path, "': ", reason));
  }
  return absl::OkStatus();
}

}  // namespace

const char* LibTorchVersion() { return TORCH_VERSION; }

absl::Status SavePackage(const StaticModule& module, const std::string& path,
                         const PackageSource& source, bool packed_weights) {
  const ModuleState& state = ModuleState::Of(module);
  if (state.options.enable_tensorexpr_fusion) {
    return absl::InvalidArgumentError("a package cannot hold a fusion_hook");
  }
  if (!state.prepared.self.isNone()) {
    return absl::InvalidArgumentError(
        "a package cannot hold module state: forward reads or writes attributes of its module "
        "(attributes it assigns stay attributes when frozen), which the package would need the "
        "module object for");
  }
  // Forked subgraphs go in prepared, so that loading runs no pass.
  const std::shared_ptr<torch::jit::Graph> to_write = state.prepared.graph->copy();
  PrepareForkedSubgraphs(*to_write, ForkedCallOptions(state.options));
  ASSIGN_OR_RETURN(SerializedGraph graph, SerializeGraph(*to_write));
  for (const c10::IValue& value : graph.table) {
    if (HoldsObject(value)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "a package cannot hold the graph constant of type ", value.type()->annotation_str()));
    }
  }
  std::ostringstream schema_text;
  schema_text << state.prepared.schema;
  try {
    if (!(torch::jit::parseSchema(schema_text.str()) == state.prepared.schema)) {
      throw std::runtime_error("it does not read back equal");
    }
  } catch (const std::exception& e) {
    return StatusFromException(
        e, absl::StrCat("a package cannot hold the input schema '", schema_text.str(), "': "),
        absl::StatusCode::kInvalidArgument);
  }

  Json records = Json::array();
  for (const memory::TensorRecord& record : state.initial_records) {
    records.push_back({{"bytes", record.bytes},
                       {"dtype", record.dtype ? Json(static_cast<int>(*record.dtype)) : Json()}});
  }
  const memory::MemoryPlanner planner(state.managed_slots, state.managed_lifetimes,
                                      state.initial_records);
  Json options = Json::object();
  for (const BoolOption& option : BoolOptions())
    options[option.name] = state.options.*option.member;
  Json metadata = {
      {"format", kFormatName},
      {"format_version", kPackageFormatVersion},
      {"library_version", kLibraryVersion},
      {"libtorch_version", LibTorchVersion()},
      {"created", absl::FormatTime(absl::RFC3339_sec, absl::Now(), absl::UTCTimeZone())},
      {"source", {{"path", source.path}, {"sha256", source.sha256}}},
      {"options", options},
      {"planned_for", state.planned_inputs},
      {"nodes",
       {{"out_variant", state.kernel_counts.out_variant},
        {"native", state.kernel_counts.native},
        {"fallback", state.kernel_counts.fallback}}},
      {"memory",
       {{"managed_tensors", state.managed_slots.size()},
        {"arena_bytes", state.initial_records.empty() ? 0 : planner.plan().arena_bytes}}},
  };
  metadata.update(DescribeSchema(state.prepared.schema, *state.prepared.graph));

  // The value table, its tensors as records of their own (as torch.jit.save
  // writes constants).
  std::vector<char> pickle;
  std::vector<at::Tensor> tensors;
  try {
    torch::jit::Pickler pickler(
        [&pickle](const char* data, size_t size) {
          pickle.insert(pickle.end(), data, data + size);
        },
        nullptr, nullptr, nullptr);
    pickler.protocol();
    pickler.pushIValue(c10::ivalue::Tuple::create(graph.table));
    pickler.stop();
    tensors = pickler.tensorData();
  } catch (const std::exception& e) {
    return StatusFromException(
        e, "cannot write the graph's values: ", absl::StatusCode::kInvalidArgument);
  }
  // The oneDNN layouts the kernels packed the table's tensors into.
  Json packs = Json::array();
  std::vector<onednn::PackedCopy> packed_copies;
  for (size_t i = 0; packed_weights && i < graph.table.size(); ++i) {
    if (!graph.table[i].isTensor()) continue;
    for (const onednn::PackedCopy& copy : onednn::PacksOf(graph.table[i].toTensor().data_ptr())) {
      packs.push_back(
          {{"value", i},
           {"record", absl::StrCat(kPacks, "/", packed_copies.size())},
           {"format", absl::BytesToHexString(absl::string_view(
                          reinterpret_cast<const char*>(&copy.format), sizeof(copy.format)))}});
      packed_copies.push_back(copy);
    }
  }
  const std::string packs_text = Json{{"packs", packs}}.dump();
  const std::string kernels = KernelLines(state.plan);
  const std::string metadata_text = metadata.dump(2);
  const std::string plan_text = Json{{"records", records}}.dump();
  return WriteAtomically(path, [&](caffe2::serialize::PyTorchStreamWriter& writer) {
    writer.writeRecord(kMetadata, metadata_text.data(), metadata_text.size());
    writer.writeRecord(kGraph, graph.ir.data(), graph.ir.size());
    writer.writeRecord(kSchema, schema_text.str().data(), schema_text.str().size());
    writer.writeRecord(kKernels, kernels.data(), kernels.size());
    writer.writeRecord(kMemoryPlan, plan_text.data(), plan_text.size());
    writer.writeRecord(absl::StrCat(kValues, ".pkl"), pickle.data(), pickle.size());
    for (size_t i = 0; i < tensors.size(); ++i) {
      const torch::jit::WriteableTensorData data = torch::jit::getWriteableTensorData(tensors[i]);
      writer.writeRecord(absl::StrCat(kValues, "/", i), data.data(), data.sizeInBytes());
    }
    writer.writeRecord(absl::StrCat(kPacks, ".json"), packs_text.data(), packs_text.size());
    for (size_t i = 0; i < packed_copies.size(); ++i) {
      writer.writeRecord(absl::StrCat(kPacks, "/", i), packed_copies[i].data,
                         packed_copies[i].bytes);
    }
  });
}

}  // namespace static_runtime
