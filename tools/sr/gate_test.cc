#include "tools/sr/gate.h"

#include <cstdlib>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace static_runtime {
namespace sr {
namespace {

using testing::HasSubstr;

std::string WriteFile(const std::string& name, const std::string& text) {
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  std::ofstream(path) << text;
  return path;
}

std::string Report(const std::string& model, double ratio) {
  return "{\"model\": \"" + model + "\", \"iters\": 10, \"ratio\": " + std::to_string(ratio) +
         ", \"static_runtime\": {\"median_us\": 1.0}}";
}

TEST(GateTest, RegressionImprovementMissingAndNewModels) {
  const std::string baseline =
      WriteFile("baseline.json", "[" + Report("ads", 0.50) + ", " + Report("cnn", 0.80) + ", " +
                                     Report("lstm", 0.40) + ", " + Report("gone", 0.3) + "]");
  const std::string current =
      WriteFile("current.json", "[" + Report("ads", 0.60) + ", " + Report("cnn", 0.70) + ", " +
                                    Report("lstm", 0.41) + "]");
  const std::string extra = WriteFile("extra.json", Report("new_model", 0.9));
  absl::StatusOr<std::map<std::string, double>> before = ReadRatios({baseline});
  absl::StatusOr<std::map<std::string, double>> after = ReadRatios({current, extra});
  ASSERT_TRUE(before.ok()) << before.status();
  ASSERT_TRUE(after.ok()) << after.status();
  const GateResult result = Gate(*before, *after, 5.0);
  EXPECT_FALSE(result.passed);
  ASSERT_EQ(result.rows.size(), 5u);
  EXPECT_EQ(result.rows[0].model, "ads");
  EXPECT_EQ(result.rows[0].verdict, "REGRESSION");
  EXPECT_NEAR(result.rows[0].change_percent, 20.0, 1e-6);
  EXPECT_EQ(result.rows[1].verdict, "improved");  // cnn
  EXPECT_EQ(result.rows[2].verdict, "MISSING");   // gone
  EXPECT_EQ(result.rows[3].verdict, "ok");        // lstm: +2.5%
  EXPECT_EQ(result.rows[4].verdict, "new");
  const std::string table = FormatGate(result, 5.0);
  EXPECT_THAT(table, HasSubstr("+20.0%"));
  EXPECT_THAT(table, HasSubstr("gate: FAILED"));

  // Within the limit, nothing missing: passes.
  EXPECT_TRUE(Gate(*before, *before, 5.0).passed);
  EXPECT_TRUE(Gate({{"ads", 0.5}}, {{"ads", 0.52}}, 5.0).passed);
  EXPECT_FALSE(Gate({{"ads", 0.5}}, {{"ads", 0.52}}, 1.0).passed);
}

TEST(GateTest, BadReportsAreErrorsThatNameTheFile) {
  const std::string malformed = WriteFile("malformed.json", "{\"model\": \"a\", \"ratio\": ");
  const std::string no_ratio = WriteFile("no_ratio.json", "{\"model\": \"a\", \"iters\": 3}");
  const std::string twice =
      WriteFile("twice.json", "[" + Report("a", 1) + "," + Report("a", 2) + "]");
  const std::string not_report = WriteFile("list.json", "[1, 2]");
  for (const auto& [file, message] :
       std::vector<std::pair<std::string, std::string>>{{malformed, "not valid JSON"},
                                                        {no_ratio, "has no \"ratio\""},
                                                        {twice, "reported twice"},
                                                        {not_report, "without a \"model\""},
                                                        {"/nonexistent/x.json", "cannot read"}}) {
    absl::StatusOr<std::map<std::string, double>> ratios = ReadRatios({file});
    ASSERT_FALSE(ratios.ok()) << file;
    EXPECT_THAT(std::string(ratios.status().message()), HasSubstr(message));
    EXPECT_THAT(std::string(ratios.status().message()), HasSubstr(file));
  }
}

}  // namespace
}  // namespace sr
}  // namespace static_runtime
