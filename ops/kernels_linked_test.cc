// Every kernel file of ops/ and of its op-family packages (ops/<family>/)
// is linked into //ops:kernels: each source file
// that registers kernels (KernelRegistry::RegisterOverload or
// RegisterNodeKind, directly or through RegisterOut, RegisterNativeOverload,
// RegisterNativeNodeKind) has registered some in a binary that links
// :kernels. A file left out of :kernels' deps registers nothing, and its
// nodes would silently fall back.
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "ops/core/registry.h"

namespace static_runtime {
namespace {

TEST(KernelsLinkedTest, EveryFileThatRegistersKernelsIsLinked) {
  const std::vector<std::string> linked = KernelRegistry::Global().SourceFiles();
  // The sources this test sees (its data): every .cc file of ops/ and of
  // the op-family packages (OP_FAMILIES in ops/BUILD.bazel).
  std::ifstream list("ops/kernel_sources.txt");
  ASSERT_TRUE(list) << "ops/kernel_sources.txt is missing";
  const std::regex registers(
      R"((RegisterOverload|RegisterNodeKind|RegisterOut|RegisterNativeOverload|RegisterNativeNodeKind)\()");
  std::vector<std::string> missing;
  int files_that_register = 0;
  int family_files_that_register = 0;  // in ops/<family>/
  for (std::string path; std::getline(list, path);) {
    if (path == "ops/core/registry.cc" || path.find("_test") != std::string::npos) continue;
    std::ifstream file(path);
    ASSERT_TRUE(file) << path;
    std::stringstream text;
    text << file.rdbuf();
    if (!std::regex_search(text.str(), registers)) continue;
    ++files_that_register;
    if (path.find('/', 4) != std::string::npos) ++family_files_that_register;
    if (std::find(linked.begin(), linked.end(), path) == linked.end()) missing.push_back(path);
  }
  EXPECT_GT(files_that_register, 15);
  EXPECT_GT(family_files_that_register, 5);
  EXPECT_TRUE(missing.empty()) << "kernel files not linked into //ops:kernels: "
                               << absl::StrJoin(missing, ", ")
                               << " (registered from: " << absl::StrJoin(linked, ", ") << ")";
}

}  // namespace
}  // namespace static_runtime
