// The table of op families is whole: every source file of ops/ and of its
// op-family packages that adds kernels (`registry.Add(`) has added some to
// the runtime's registry, GlobalKernels(). A kernel file whose function its
// family's kernels.cc does not call, or a family missing from
// KernelFamilies(), adds nothing, and its nodes would silently fall back.
#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "ops/kernels.h"

namespace static_runtime {
namespace {

TEST(KernelTableTest, EveryFileThatAddsKernelsIsInTheTable) {
  const std::vector<std::string> in_table = GlobalKernels().SourceFiles();
  // The sources this test sees (its data): every .cc file of ops/ and of
  // the op-family packages (OP_FAMILIES in ops/BUILD.bazel).
  std::ifstream list("ops/kernel_sources.txt");
  ASSERT_TRUE(list) << "ops/kernel_sources.txt is missing";
  std::vector<std::string> missing;
  int files_that_add = 0;
  for (std::string path; std::getline(list, path);) {
    if (absl::StrContains(path, "_test") || absl::StrContains(path, "_benchmark")) continue;
    std::ifstream file(path);
    ASSERT_TRUE(file) << path;
    std::stringstream text;
    text << file.rdbuf();
    if (!absl::StrContains(text.str(), "registry.Add(")) continue;
    ++files_that_add;
    if (std::find(in_table.begin(), in_table.end(), path) == in_table.end()) {
      missing.push_back(path);
    }
  }
  EXPECT_GT(files_that_add, 30);
  EXPECT_TRUE(missing.empty()) << "kernel files whose kernels the table of families does not add: "
                               << absl::StrJoin(missing, ", ")
                               << " (added from: " << absl::StrJoin(in_table, ", ") << ")";
}

// Each family adds kernels, and only from its own package.
TEST(KernelTableTest, EachFamilyAddsItsOwnKernels) {
  for (const KernelFamily& family : KernelFamilies()) {
    KernelRegistry registry;
    family.add_kernels(registry);
    const std::vector<std::string> files = registry.SourceFiles();
    EXPECT_FALSE(files.empty()) << family.name;
    for (const std::string& file : files) {
      EXPECT_TRUE(absl::StartsWith(file, absl::StrCat("ops/", family.name, "/")))
          << family.name << " adds kernels from " << file;
    }
  }
}

}  // namespace
}  // namespace static_runtime
