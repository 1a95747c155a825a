// update_golden: rewrites the golden files from the current code, so a change
// to preparation shows up as a reviewable diff:
//   golden/passes/<pass>/<case>.expected  (each pass on its input graph)
//   golden/prepared/<model>.ir            (each corpus model, prepared with
//                                          default options; files of models no
//                                          longer in the corpus are removed)
// Run it with `bazel run //verify:update_golden`, which sets
// BUILD_WORKSPACE_DIRECTORY to the source tree.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <set>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "errors/status_macros.h"
#include "verify/corpus.h"
#include "verify/golden_files.h"
#include "verify/pass_table.h"
#include "verify/prepared_graphs.h"

namespace static_runtime {
namespace golden {
namespace {

// Writes `contents` to `path` unless it already holds them; counts changes.
absl::Status Update(const std::string& path, const std::string& contents, int& changed) {
  absl::StatusOr<std::string> old = ReadFile(path);
  if (old.ok() && *old == contents) return absl::OkStatus();
  RETURN_IF_ERROR(WriteFile(path, contents));
  std::cout << "updated " << path << "\n";
  ++changed;
  return absl::OkStatus();
}

absl::Status UpdatePassCases(const std::string& workspace, int& cases, int& changed) {
  ASSIGN_OR_RETURN(std::vector<GoldenCase> golden_cases,
                   ListGoldenCases(absl::StrCat(workspace, "/golden/passes")));
  for (const GoldenCase& golden_case : golden_cases) {
    const NamedPass* pass = FindPass(golden_case.pass);
    if (pass == nullptr) {
      return absl::NotFoundError(
          absl::StrCat("no pass named '", golden_case.pass, "' (", golden_case.input_path, ")"));
    }
    ASSIGN_OR_RETURN(std::string input, ReadFile(golden_case.input_path));
    RETURN_IF_ERROR(Update(golden_case.expected_path, RunPassOnIR(*pass, input), changed));
    ++cases;
  }
  return absl::OkStatus();
}

absl::Status UpdatePreparedGraphs(const std::string& workspace, int& models, int& changed) {
  const std::string root = absl::StrCat(workspace, "/golden/prepared");
  std::set<std::string> names;
  for (const corpus::Model& model : corpus::Models()) {
    absl::StatusOr<std::string> text = PreparedGraphText(model);
    if (!text.ok()) {
      return absl::Status(text.status().code(),
                          absl::StrCat(model.name, ": ", text.status().message()));
    }
    RETURN_IF_ERROR(Update(PreparedGraphPath(root, model.name), *text, changed));
    names.insert(model.name);
    ++models;
  }
  ASSIGN_OR_RETURN(std::vector<std::string> existing, ListPreparedGraphs(root));
  for (const std::string& name : existing) {
    if (names.count(name)) continue;
    const std::string path = PreparedGraphPath(root, name);
    if (std::remove(path.c_str()) != 0) {
      return absl::InternalError(absl::StrCat("cannot remove '", path, "'"));
    }
    std::cout << "removed " << path << " (no such corpus model)\n";
    ++changed;
  }
  return absl::OkStatus();
}

}  // namespace
}  // namespace golden
}  // namespace static_runtime

int main(int argc, char** argv) {
  using namespace static_runtime::golden;
  if (argc > 1) {
    std::cout << "usage: bazel run //verify:update_golden\n"
                 "Rewrites golden/passes/<pass>/<case>.expected from the current "
                 "passes and\ngolden/prepared/<model>.ir from the current "
                 "preparation of each corpus model.\n";
    return std::string(argv[1]) == "--help" ? 0 : 2;
  }
  const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  if (workspace == nullptr) {
    std::cerr << "update_golden: run me with `bazel run //verify:update_golden`\n";
    return 2;
  }
  int cases = 0, models = 0, changed = 0;
  absl::Status status = UpdatePassCases(workspace, cases, changed);
  if (status.ok()) status = UpdatePreparedGraphs(workspace, models, changed);
  if (!status.ok()) {
    std::cerr << "update_golden: " << status.message() << "\n";
    return 1;
  }
  std::cout << cases << " pass cases, " << models << " prepared graphs, " << changed
            << " files updated\n";
  return 0;
}
