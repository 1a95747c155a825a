// update_golden: rewrites the expected files of the golden IR tests
// (golden/passes/<pass>/<case>.expected) from the current passes, so a change
// to preparation shows up as a reviewable diff. Run it with
//   bazel run //tools:update_golden
// which sets BUILD_WORKSPACE_DIRECTORY to the source tree.
#include <cstdlib>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "golden/golden_files.h"
#include "golden/pass_table.h"

int main(int argc, char** argv) {
  using namespace static_runtime::golden;
  if (argc > 1) {
    std::cout << "usage: bazel run //tools:update_golden\n"
                 "Rewrites golden/passes/<pass>/<case>.expected from the current "
                 "passes.\n";
    return std::string(argv[1]) == "--help" ? 0 : 2;
  }
  const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  if (workspace == nullptr) {
    std::cerr << "update_golden: run me with `bazel run //tools:update_golden`\n";
    return 2;
  }
  absl::StatusOr<std::vector<GoldenCase>> cases =
      ListGoldenCases(absl::StrCat(workspace, "/golden/passes"));
  if (!cases.ok()) {
    std::cerr << "update_golden: " << cases.status().message() << "\n";
    return 1;
  }
  int changed = 0;
  for (const GoldenCase& golden_case : *cases) {
    const NamedPass* pass = FindPass(golden_case.pass);
    if (pass == nullptr) {
      std::cerr << "update_golden: no pass named '" << golden_case.pass << "'\n";
      return 1;
    }
    absl::StatusOr<std::string> input = ReadFile(golden_case.input_path);
    if (!input.ok()) {
      std::cerr << "update_golden: " << input.status().message() << "\n";
      return 1;
    }
    const std::string actual = RunPassOnIR(*pass, *input);
    absl::StatusOr<std::string> old = ReadFile(golden_case.expected_path);
    if (old.ok() && *old == actual) continue;
    absl::Status written = WriteFile(golden_case.expected_path, actual);
    if (!written.ok()) {
      std::cerr << "update_golden: " << written.message() << "\n";
      return 1;
    }
    std::cout << "updated " << golden_case.expected_path << "\n";
    ++changed;
  }
  std::cout << cases->size() << " golden cases, " << changed << " updated\n";
  return 0;
}
