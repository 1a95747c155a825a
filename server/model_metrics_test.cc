// /metrics' text: each model's counters and, where its engine reports
// them, its memory gauges; a model served by the static runtime reports
// its arenas, prepared weights and shape plans.
#include "server/model_metrics.h"

#include <memory>
#include <vector>

#include "ATen/ATen.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/corpus_module.h"
#include "server/engine.h"
#include "server/served_model.h"

namespace static_runtime {
namespace server {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(ModelMetricsTest, CountersForEveryModelGaugesWhereTheEngineTells) {
  ModelMetrics served, jit;
  served.CountSuccess();
  served.CountRun(3, 10, 200);
  jit.CountFailure();
  const std::string text = PrometheusText(
      {{"served", &served, ModelMemory{4096, 1234, 7}}, {"jit", &jit, std::nullopt}});
  EXPECT_THAT(text, HasSubstr("sr_request_success_total{model=\"served\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("sr_request_failure_total{model=\"jit\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("sr_batch_size_bucket{model=\"served\",le=\"4\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE sr_arena_bytes gauge\n"));
  EXPECT_THAT(text, HasSubstr("sr_arena_bytes{model=\"served\"} 4096\n"));
  EXPECT_THAT(text, HasSubstr("sr_prepared_weight_bytes{model=\"served\"} 1234\n"));
  EXPECT_THAT(text, HasSubstr("sr_shape_plans{model=\"served\"} 7\n"));
  EXPECT_THAT(text, Not(HasSubstr("sr_arena_bytes{model=\"jit\"}")));
}

TEST(ModelMetricsTest, TheStaticRuntimeReportsWhatItsModelHolds) {
  absl::StatusOr<CorpusModule> prepared = PrepareCorpusModel(corpus::ModelNamed("cnn_two_stage"));
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  absl::StatusOr<std::unique_ptr<ServedModel>> model =
      ServedModel::Make("cnn", StaticRuntimeEngine(prepared->static_module, 1), ModelConfig());
  ASSERT_TRUE(model.ok()) << model.status();
  // (The first run learns the sizes the arena of the second holds.)
  for (int run = 0; run < 2; ++run) {
    ASSERT_TRUE((*model)->Infer({{"x", at::randn({1, 2, 12, 12})}}).ok());
  }
  const std::optional<ModelMemory> memory = (*model)->memory();
  ASSERT_TRUE(memory.has_value());
  EXPECT_GT(memory->arena_bytes, 0u);
  EXPECT_GT(memory->prepared_weight_bytes, 0u);
  EXPECT_GT(memory->shape_plans, 0u);
  EXPECT_EQ(memory->prepared_weight_bytes,
            prepared->static_module->KernelCaches().prepared_weight_bytes);
}

}  // namespace
}  // namespace server
}  // namespace static_runtime
