// Golden IR files: golden/passes/<pass>/<case>.ir holds an input graph and
// <case>.expected beside it the text the pass must produce. This lists the
// cases under a root directory and renders readable line diffs; the golden
// test compares and verify/update_golden rewrites the expected files.
#ifndef STATIC_RUNTIME_VERIFY_GOLDEN_FILES_H_
#define STATIC_RUNTIME_VERIFY_GOLDEN_FILES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace static_runtime {
namespace golden {

struct GoldenCase {
  std::string pass;           // directory name: a name from Passes()
  std::string input_path;     // .../<pass>/<case>.ir
  std::string expected_path;  // .../<pass>/<case>.expected
};

// All cases under `root` (e.g. "golden/passes"), sorted by path.
absl::StatusOr<std::vector<GoldenCase>> ListGoldenCases(const std::string& root);

absl::StatusOr<std::string> ReadFile(const std::string& path);
absl::Status WriteFile(const std::string& path, const std::string& contents);

// A line diff of `expected` -> `actual` ("-" lines removed, "+" added, two
// lines of context), or "" when equal.
std::string LineDiff(const std::string& expected, const std::string& actual);

}  // namespace golden
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_VERIFY_GOLDEN_FILES_H_
