#include "verify/prepared_graphs.h"

#include <algorithm>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "errors/status_macros.h"
#include "passes/prepare.h"
#include "verify/pass_table.h"

namespace static_runtime {
namespace golden {

absl::StatusOr<std::string> PreparedGraphText(const corpus::Model& model) {
  ASSIGN_OR_RETURN(torch::jit::Module module, corpus::Build(model));
  ASSIGN_OR_RETURN(PreparedGraph prepared, PrepareModule(module, /*is_frozen=*/false, Options()));
  return GoldenText(*prepared.graph);
}

std::string PreparedGraphPath(const std::string& root, const std::string& model_name) {
  return absl::StrCat(root, "/", model_name, ".ir");
}

absl::StatusOr<std::vector<std::string>> ListPreparedGraphs(const std::string& root) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (!fs::is_directory(root, error)) {
    return absl::NotFoundError(absl::StrCat("no golden directory '", root, "'"));
  }
  std::vector<std::string> names;
  for (const auto& file : fs::directory_iterator(root)) {
    if (file.path().extension() == ".ir") names.push_back(file.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace golden
}  // namespace static_runtime
