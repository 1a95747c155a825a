#include "server/model_config.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace static_runtime {
namespace server {
namespace {

using ::testing::HasSubstr;

TEST(ModelConfig, ReadsEveryKey) {
  absl::StatusOr<ModelConfig> config = ParseModelConfig(R"({
    "max_batch_size": 8, "max_queue_delay_us": 500, "instances": 2, "queue_size": 3,
    "options": {"enable_fusion": false},
    "inputs": [{"name": "x", "datatype": "FP32", "shape": [-1, 4]}],
    "warmup": [[{"name": "x", "datatype": "FP32", "shape": [1, 4]}],
               [{"name": "x", "datatype": "FP32", "shape": [2, 4]}]]})");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->max_batch_size, 8);
  EXPECT_EQ(config->max_queue_delay_us, 500);
  EXPECT_EQ(config->instances, 2);
  EXPECT_EQ(config->queue_size, 3);
  EXPECT_FALSE(config->options.enable_fusion);
  ASSERT_EQ(config->inputs.size(), 1u);
  EXPECT_EQ(config->inputs[0].shape, (std::vector<int64_t>{-1, 4}));
  ASSERT_EQ(config->warmup.size(), 2u);
  ASSERT_EQ(config->warmup[1].size(), 1u);
  EXPECT_EQ(config->warmup[1][0].name, "x");
  EXPECT_EQ(config->warmup[1][0].datatype, "FP32");
  EXPECT_EQ(config->warmup[1][0].shape, (std::vector<int64_t>{2, 4}));
}

TEST(ModelConfig, DefaultsWhenEmpty) {
  absl::StatusOr<ModelConfig> config = ParseModelConfig("{}");
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(config->max_batch_size, 0);
  EXPECT_EQ(config->instances, 1);
  EXPECT_EQ(config->queue_size, 64);
}

TEST(ModelConfig, ErrorsNameTheKey) {
  const std::pair<const char*, const char*> cases[] = {
      {"[1]", "must be an object"},
      {"{", "not valid JSON"},
      {R"({"max_batch_sise": 4})", "unknown key 'max_batch_sise'"},
      {R"({"instances": 0})", "'instances' is 0, not in [1, 256]"},
      {R"({"instances": "2"})", "'instances' must be an integer"},
      {R"({"options": {"fast": true}})", "unknown option 'fast'"},
      {R"({"options": {"enable_fusion": 1}})", "options.enable_fusion' must be true or false"},
      {R"({"inputs": [{"name": "x", "datatype": "FP8"}]})", "datatype 'FP8'"},
      {R"({"inputs": [{"name": "x", "shape": [-2]}]})", "inputs[0].shape"},
      {R"({"inputs": [{"datatype": "FP32"}]})", "inputs[0].name"},
      {R"({"warmup": {"x": [1]}})", "'warmup' must be a list of samples"},
      {R"({"warmup": [[]]})", "'warmup[0]' must be a non-empty list"},
      {R"({"warmup": [[{"name": "x", "shape": [1]}]]})", "warmup[0][0].datatype"},
      {R"({"warmup": [[{"name": "x", "datatype": "FP32", "shape": [-1]}]]})",
       "warmup[0][0].shape' must be a list of sizes"},
  };
  for (const auto& [text, message] : cases) {
    absl::StatusOr<ModelConfig> config = ParseModelConfig(text);
    ASSERT_FALSE(config.ok()) << text;
    EXPECT_THAT(config.status().message(), HasSubstr(message)) << text;
  }
}

}  // namespace
}  // namespace server
}  // namespace static_runtime
