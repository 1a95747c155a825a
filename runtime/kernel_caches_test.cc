// What a module's kernel caches hold (StaticModule::KernelCaches): each
// kernel keeps the plans of at most Options::shape_plans_per_kernel input
// shapes, a plan dropped and made again computes the same bits, and
// weights are laid out once.
#include <vector>

#include "ATen/ATen.h"
#include "execution/background_work.h"
#include "gtest/gtest.h"
#include "runtime/corpus_module.h"
#include "runtime/static_module.h"
#include "runtime/static_runtime.h"
#include "verify/corpus.h"
#include "verify/reference.h"

namespace static_runtime {
namespace {

TEST(KernelCachesTest, PlansStayWithinTheBoundAndComputeTheSameWhenMadeAgain) {
  const corpus::Model& model = corpus::ModelNamed("conv_bn_residual");
  Options bounded_options;
  bounded_options.shape_plans_per_kernel = 2;
  absl::StatusOr<CorpusModule> bounded = PrepareCorpusModel(model, bounded_options);
  ASSERT_TRUE(bounded.ok()) << bounded.status();
  absl::StatusOr<CorpusModule> unbounded = PrepareCorpusModel(model);
  ASSERT_TRUE(unbounded.ok()) << unbounded.status();
  StaticRuntime bounded_runtime(bounded->static_module);
  StaticRuntime unbounded_runtime(unbounded->static_module);
  corpus::InputRng rng(3);
  // Five shapes, then the first ones again (their plans were dropped).
  std::vector<std::vector<c10::IValue>> input_sets;
  for (const int64_t size : {1, 2, 3, 4, 5, 1, 2}) input_sets.push_back(model.inputs(rng, size));
  for (size_t i = 0; i < input_sets.size(); ++i) {
    SCOPED_TRACE(i);
    absl::StatusOr<c10::IValue> expected = unbounded_runtime.Run(input_sets[i]);
    ASSERT_TRUE(expected.ok()) << expected.status();
    absl::StatusOr<c10::IValue> actual = bounded_runtime.Run(input_sets[i]);
    ASSERT_TRUE(actual.ok()) << actual.status();
    EXPECT_TRUE(reference::ExactlyEqual(*expected, *actual));
  }
  WaitForBackgroundWork();
  const KernelCacheStats kept = unbounded->static_module->KernelCaches();
  const KernelCacheStats dropped = bounded->static_module->KernelCaches();
  EXPECT_EQ(kept.shape_plans_evicted, 0u);
  EXPECT_GE(kept.shape_plans, 5u);
  EXPECT_GT(dropped.shape_plans_evicted, 0u);
  EXPECT_LT(dropped.shape_plans, kept.shape_plans);
  EXPECT_EQ(dropped.shape_plans, dropped.shape_plans_made - dropped.shape_plans_evicted);
  // Every node's caches keep at most 2 plans each (a convolution has a few
  // caches: by input and result layout).
  for (const NodeDescription& node : bounded->static_module->DescribeNodes()) {
    EXPECT_LE(node.caches.shape_plans, 2u * 5u) << node.position;
  }
  // The weights are re-laid out once, whatever the plans.
  EXPECT_GT(kept.prepared_weight_bytes, 0u);
  EXPECT_EQ(dropped.prepared_weight_bytes, kept.prepared_weight_bytes);
  EXPECT_EQ(dropped.prepared_weights, kept.prepared_weights);
}

// A linear's weight is laid out for oneDNN when the module is made, so that
// a new shape only makes its plan (the layout is the same for every row
// count here: ops/linalg/onednn_matmul.h).
TEST(KernelCachesTest, LinearWeightsArePackedAtLoadTime) {
  const corpus::Model& model = corpus::ModelNamed("mlp");
  absl::StatusOr<CorpusModule> prepared = PrepareCorpusModel(model);
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  const KernelCacheStats loaded = prepared->static_module->KernelCaches();
  EXPECT_EQ(loaded.shape_plans_made, 0u);
  EXPECT_GT(loaded.prepared_weight_bytes, 0u);
  StaticRuntime runtime(prepared->static_module);
  corpus::InputRng rng(5);
  // 400 and 800 rows: more than ops::StreamedLinear takes, so oneDNN's plans.
  for (const int64_t size : {100, 200}) {
    absl::StatusOr<c10::IValue> result = runtime.Run(model.inputs(rng, size));
    ASSERT_TRUE(result.ok()) << result.status();
  }
  WaitForBackgroundWork();  // (where oneDNN runs brgemm, plans of new row counts are made there)
  const KernelCacheStats called = prepared->static_module->KernelCaches();
  EXPECT_GE(called.shape_plans_made, 4u);
  EXPECT_EQ(called.prepared_weight_bytes, loaded.prepared_weight_bytes);
  EXPECT_EQ(called.prepared_weights, loaded.prepared_weights);
}

TEST(KernelCachesTest, AModuleWithoutWeightedKernelsHoldsNothing) {
  absl::StatusOr<StaticModule::Ptr> module = StaticModule::FromIR(R"IR(
graph(%x : Tensor):
  %y : Tensor = aten::relu(%x)
  return (%y)
)IR");
  ASSERT_TRUE(module.ok()) << module.status();
  StaticRuntime runtime(*module);
  ASSERT_TRUE(runtime.Run({at::randn({4, 4})}).ok());
  const KernelCacheStats stats = (*module)->KernelCaches();
  EXPECT_EQ(stats.shape_plans_made, 0u);
  EXPECT_EQ(stats.prepared_weight_bytes, 0u);
}

}  // namespace
}  // namespace static_runtime
