// Golden IR tests: every golden/passes/<pass>/<case>.ir, run through <pass>,
// must print exactly as <case>.expected. Regenerate the expected files with
// `bazel run //verify:update_golden` and review the diff.
#include <set>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "verify/golden_files.h"
#include "verify/pass_table.h"

namespace static_runtime {
namespace golden {
namespace {

TEST(PassesGoldenTest, EveryCaseMatchesItsExpectedGraph) {
  absl::StatusOr<std::vector<GoldenCase>> cases = ListGoldenCases("golden/passes");
  ASSERT_TRUE(cases.ok()) << cases.status();
  std::set<std::string> covered;
  for (const GoldenCase& golden_case : *cases) {
    SCOPED_TRACE(golden_case.input_path);
    const NamedPass* pass = FindPass(golden_case.pass);
    ASSERT_NE(pass, nullptr) << "no pass named '" << golden_case.pass << "'";
    absl::StatusOr<std::string> input = ReadFile(golden_case.input_path);
    ASSERT_TRUE(input.ok()) << input.status();
    absl::StatusOr<std::string> expected = ReadFile(golden_case.expected_path);
    ASSERT_TRUE(expected.ok()) << expected.status() << " (run `bazel run //verify:update_golden`)";
    const std::string actual = RunPassOnIR(*pass, *input);
    const std::string diff = LineDiff(*expected, actual);
    EXPECT_TRUE(diff.empty()) << golden_case.input_path
                              << " changed (- expected, + actual); if intended, "
                              << "run `bazel run //verify:update_golden` and review the diff:\n"
                              << diff;
    covered.insert(golden_case.pass);
  }
  for (const NamedPass& pass : Passes()) {
    EXPECT_TRUE(covered.count(pass.name)) << "pass '" << pass.name << "' has no golden case";
  }
}

TEST(LineDiffTest, ShowsRemovedAndAddedLines) {
  EXPECT_EQ(LineDiff("a\nb\nc", "a\nb\nc"), "");
  EXPECT_EQ(LineDiff("a\nb\nc", "a\nx\nc"), "  a\n- b\n+ x\n  c\n");
}

}  // namespace
}  // namespace golden
}  // namespace static_runtime
