// A model served with warm-up samples (config.json's "warmup") on the
// static runtime: the samples prepare its kernels before the model is made
// (and so before the repository calls it ready), so a request at a warmed
// shape prepares nothing, with dynamic batching at every batch size up to
// max_batch_size; a shape that was not warmed still does (the check can see
// a miss).
#include <vector>

#include "ATen/ATen.h"
#include "gtest/gtest.h"
#include "ops/onednn/onednn.h"
#include "runtime/corpus_module.h"
#include "server/engine.h"
#include "server/served_model.h"

namespace static_runtime {
namespace server {
namespace {

TEST(WarmUp, ARequestAtAWarmedShapePreparesNothing) {
  absl::StatusOr<CorpusModule> prepared = PrepareCorpusModel(corpus::ModelNamed("cnn_two_stage"));
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  ModelConfig config;
  config.max_batch_size = 3;
  config.warmup = {{{"x", "FP32", {1, 2, 12, 12}}}};
  const uint64_t before = onednn::PlansMade();
  absl::StatusOr<std::unique_ptr<ServedModel>> model =
      ServedModel::Make("cnn", StaticRuntimeEngine(prepared->static_module, 1), config);
  ASSERT_TRUE(model.ok()) << model.status();
  const uint64_t warmed = onednn::PlansMade();
  EXPECT_GT(warmed, before) << "the warm-up prepared nothing";

  for (const int64_t rows : {2, 1, 3}) {
    absl::StatusOr<std::vector<NamedTensor>> outputs =
        (*model)->Infer({{"x", at::randn({rows, 2, 12, 12})}});
    ASSERT_TRUE(outputs.ok()) << outputs.status();
    EXPECT_EQ(onednn::PlansMade(), warmed) << "a request at batch size " << rows;
  }
  ASSERT_TRUE((*model)->Infer({{"x", at::randn({1, 2, 16, 16})}}).ok());
  EXPECT_GT(onednn::PlansMade(), warmed) << "an image size that was not warmed";
}

}  // namespace
}  // namespace server
}  // namespace static_runtime
