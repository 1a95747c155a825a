#include "ops/coverage.h"

#include <fstream>
#include <sstream>

#include "gtest/gtest.h"

namespace static_runtime {
namespace {

TEST(CoverageTest, ReadmeMatchesTheRegistry) {
  std::ifstream file("ops/README.md");
  ASSERT_TRUE(file) << "ops/README.md is missing";
  std::stringstream contents;
  contents << file.rdbuf();
  EXPECT_EQ(contents.str(), CoverageMarkdown(ReadKernelSources()))
      << "ops/README.md is stale: run `bazel run //ops:coverage -- --write`";
}

}  // namespace
}  // namespace static_runtime
