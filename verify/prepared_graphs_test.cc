// Every corpus model's prepared graph must print exactly as
// golden/prepared/<model>.ir, and every file there must belong to a model.
// After an intended change to preparation, run
// `bazel run //verify:update_golden` and review the diff.
#include "verify/prepared_graphs.h"

#include <set>
#include <string>

#include "gtest/gtest.h"
#include "verify/corpus.h"
#include "verify/golden_files.h"

namespace static_runtime {
namespace golden {
namespace {

constexpr char kRoot[] = "golden/prepared";

TEST(PreparedGraphsTest, EveryModelMatchesItsGoldenGraph) {
  for (const corpus::Model& model : corpus::Models()) {
    SCOPED_TRACE(model.name);
    absl::StatusOr<std::string> actual = PreparedGraphText(model);
    ASSERT_TRUE(actual.ok()) << actual.status();
    const std::string path = PreparedGraphPath(kRoot, model.name);
    absl::StatusOr<std::string> expected = ReadFile(path);
    ASSERT_TRUE(expected.ok()) << expected.status() << " (run `bazel run //verify:update_golden`)";
    const std::string diff = LineDiff(*expected, *actual);
    EXPECT_TRUE(diff.empty()) << path << " changed (- golden, + prepared now); if intended, run "
                              << "`bazel run //verify:update_golden` and review the diff:\n"
                              << diff;
  }
}

TEST(PreparedGraphsTest, EveryGoldenGraphBelongsToAModel) {
  absl::StatusOr<std::vector<std::string>> names = ListPreparedGraphs(kRoot);
  ASSERT_TRUE(names.ok()) << names.status();
  std::set<std::string> models;
  for (const corpus::Model& model : corpus::Models()) models.insert(model.name);
  for (const std::string& name : *names) {
    EXPECT_TRUE(models.count(name))
        << PreparedGraphPath(kRoot, name)
        << " names no corpus model (`bazel run //verify:update_golden` removes it)";
  }
  EXPECT_EQ(names->size(), models.size());
}

}  // namespace
}  // namespace golden
}  // namespace static_runtime
