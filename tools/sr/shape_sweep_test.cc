#include "tools/sr/shape_sweep.h"

#include <map>
#include <string>
#include <vector>

#include "ATen/ATen.h"
#include "gtest/gtest.h"

namespace static_runtime {
namespace sr {
namespace {

TEST(ShapeSweepTest, EachShapeIsCalledOnceFirstThenSteadilyThenAtRandom) {
  const std::vector<std::vector<c10::IValue>> inputs = {{at::zeros({1, 2})}, {at::zeros({3, 2})}};
  const std::vector<std::string> names = {"f32[1,2]", "f32[3,2]"};
  std::vector<int64_t> calls;  // the batch of every call, in order (-1: settled)
  ShapeSweepConfig config;
  config.steady_calls = 3;
  config.random_calls = 40;
  const ShapeSweepReport report = SweepShapes(
      "fake",
      [&](const std::vector<c10::IValue>& arguments) {
        calls.push_back(arguments[0].toTensor().size(0));
      },
      [&] { calls.push_back(-1); }, inputs, names, config);
  ASSERT_EQ(calls.size(), 2u * 5 + 40);
  EXPECT_EQ(std::vector<int64_t>(calls.begin(), calls.begin() + 10),
            std::vector<int64_t>({1, -1, 1, 1, 1, 3, -1, 3, 3, 3}));
  std::map<int64_t, int> random;
  for (size_t i = 10; i < calls.size(); ++i) ++random[calls[i]];
  EXPECT_GT(random[1], 0);
  EXPECT_GT(random[3], 0);
  ASSERT_EQ(report.shapes.size(), 2u);
  EXPECT_EQ(report.shapes[1].name, "f32[3,2]");
  EXPECT_EQ(report.random_calls, 40);
  EXPECT_GT(report.prepared_mib, 0);
  const std::string json = ShapeSweepJson(report);
  EXPECT_NE(json.find(R"("side": "fake")"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("shape": "f32[3,2]")"), std::string::npos) << json;
  EXPECT_NE(FormatShapeSweep(report).find("f32[1,2]"), std::string::npos);
}

TEST(ShapeSweepTest, ResidentMemoryGrowsWithWhatTheCallTouches) {
  const double before = ResidentMiB();
  std::vector<char> touched(64 << 20, 1);
  EXPECT_GT(ResidentMiB() - before, 32.0);
  EXPECT_EQ(touched[touched.size() / 2], 1);
}

}  // namespace
}  // namespace sr
}  // namespace static_runtime
