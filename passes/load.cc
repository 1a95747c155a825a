#include "passes/load.h"

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "passes/archive_check.h"
#include "passes/exception_message.h"
#include "torch/csrc/jit/ir/irparser.h"
#include "torch/csrc/jit/serialization/import.h"

namespace static_runtime {
namespace {

// The first line of a (possibly multi-line, backtrace-carrying) error message.
std::string FirstLine(const std::string& message) {
  return message.substr(0, message.find('\n'));
}

}  // namespace

absl::StatusOr<torch::jit::Module> LoadModuleFromBytes(absl::string_view bytes) {
  absl::Status intact = CheckArchive(bytes);
  if (!intact.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("not a loadable TorchScript archive: ", intact.message()));
  }
  try {
    std::istringstream stream{std::string(bytes)};
    return torch::jit::load(stream, c10::Device(c10::kCPU));
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("not a loadable TorchScript archive: ",
                     FirstLine(ExceptionMessage(e))));
  }
}

absl::StatusOr<torch::jit::Module> LoadModuleFromFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return absl::NotFoundError(
        absl::StrCat("cannot open model file '", path, "'"));
  }
  std::ostringstream bytes;
  bytes << file.rdbuf();
  if (file.bad()) {
    return absl::NotFoundError(
        absl::StrCat("cannot read model file '", path, "'"));
  }
  absl::StatusOr<torch::jit::Module> module = LoadModuleFromBytes(bytes.str());
  if (!module.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", path, "' is ", module.status().message()));
  }
  return module;
}

absl::StatusOr<std::shared_ptr<torch::jit::Graph>> ParseGraphIR(
    absl::string_view ir) {
  auto graph = std::make_shared<torch::jit::Graph>();
  try {
    torch::jit::parseIR(std::string(ir), graph.get(),
                        /*parse_tensor_constants=*/true);
    graph->lint();
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("malformed graph IR: ", ExceptionMessage(e)));
  }
  return graph;
}

absl::StatusOr<torch::jit::Module> ModuleFromSource(
    absl::string_view source, const std::vector<NamedTensor>& attributes) {
  try {
    torch::jit::Module module("__torch__.StaticRuntimeSourceModule");
    for (const auto& [name, tensor] : attributes) {
      module.register_buffer(name, tensor);
    }
    module.define(std::string(source));
    return module;
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot compile TorchScript source: ", ExceptionMessage(e)));
  }
}

}  // namespace static_runtime
