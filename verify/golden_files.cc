#include "verify/golden_files.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace static_runtime {
namespace golden {

namespace fs = std::filesystem;

absl::StatusOr<std::vector<GoldenCase>> ListGoldenCases(const std::string& root) {
  std::error_code error;
  if (!fs::is_directory(root, error)) {
    return absl::NotFoundError(absl::StrCat("no golden directory '", root, "'"));
  }
  std::vector<GoldenCase> cases;
  for (const auto& pass_dir : fs::directory_iterator(root)) {
    if (!pass_dir.is_directory()) continue;
    for (const auto& file : fs::directory_iterator(pass_dir.path())) {
      if (file.path().extension() != ".ir") continue;
      fs::path expected = file.path();
      expected.replace_extension(".expected");
      cases.push_back(
          {pass_dir.path().filename().string(), file.path().string(), expected.string()});
    }
  }
  std::sort(cases.begin(), cases.end(),
            [](const GoldenCase& a, const GoldenCase& b) { return a.input_path < b.input_path; });
  return cases;
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream file(path);
  if (!file) return absl::NotFoundError(absl::StrCat("cannot read '", path, "'"));
  std::ostringstream contents;
  contents << file.rdbuf();
  return contents.str();
}

absl::Status WriteFile(const std::string& path, const std::string& contents) {
  std::ofstream file(path);
  file << contents;
  if (!file) return absl::InternalError(absl::StrCat("cannot write '", path, "'"));
  return absl::OkStatus();
}

std::string LineDiff(const std::string& expected, const std::string& actual) {
  if (expected == actual) return "";
  const std::vector<std::string> a = absl::StrSplit(expected, '\n');
  const std::vector<std::string> b = absl::StrSplit(actual, '\n');
  // Longest common subsequence table, then a walk that emits the edit script.
  std::vector<std::vector<int>> lcs(a.size() + 1, std::vector<int>(b.size() + 1, 0));
  for (size_t i = a.size(); i-- > 0;) {
    for (size_t j = b.size(); j-- > 0;) {
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  std::vector<std::string> script;
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (i < a.size() && j < b.size() && a[i] == b[j]) {
      script.push_back(absl::StrCat("  ", a[i++]));
      ++j;
    } else if (i < a.size() && (j == b.size() || lcs[i + 1][j] >= lcs[i][j + 1])) {
      script.push_back(absl::StrCat("- ", a[i++]));
    } else {
      script.push_back(absl::StrCat("+ ", b[j++]));
    }
  }
  // Keep changed lines and two lines of context around them.
  std::string diff;
  for (size_t k = 0; k < script.size(); ++k) {
    bool near_change = false;
    for (size_t d = (k < 2 ? 0 : k - 2); d <= std::min(script.size() - 1, k + 2); ++d) {
      near_change = near_change || script[d][0] != ' ';
    }
    if (near_change) absl::StrAppend(&diff, script[k], "\n");
  }
  return diff;
}

}  // namespace golden
}  // namespace static_runtime
