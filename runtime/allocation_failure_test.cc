// Allocation failures: for each k, the k-th CPU allocation of a run fails
// (as LibTorch's allocator fails when memory runs out). The run either
// succeeds (the allocation was not needed) or returns ResourceExhausted;
// never a crash. The runtime holds nothing afterwards, and the next run,
// with memory again, equals the JIT's. The same for each allocation of
// module creation: an error, or a module that runs correctly. Run under
// ASan/LSan (`bazel test --config=asan`) it also shows nothing leaks.
#include <iostream>
#include <string>
#include <vector>

#include "ATen/ATen.h"
#include "gtest/gtest.h"
#include "memory/counting_allocator.h"
#include "runtime/corpus_module.h"
#include "runtime/static_runtime.h"
#include "verify/corpus.h"
#include "verify/run_check.h"

namespace static_runtime {
namespace {

using memory::CountingAllocator;

class AllocationFailureTest : public ::testing::TestWithParam<std::string> {};

TEST_P(AllocationFailureTest, EveryAllocationOfARunMayFail) {
  CountingAllocator& allocator = CountingAllocator::Installed();
  absl::StatusOr<CorpusModule> prepared = PrepareCorpusModel(corpus::ModelNamed(GetParam()));
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  corpus::InputRng rng(3);
  const std::vector<c10::IValue> inputs = prepared->model->inputs(rng, 2);
  StaticRuntime runtime(prepared->static_module);
  ASSERT_TRUE(runtime.Run(inputs).ok());
  // As a caller that holds one run's outputs during the next one: each run
  // then allocates its output slab anew (one nothing holds is reused).
  absl::StatusOr<c10::IValue> held = runtime.Run(inputs);
  ASSERT_TRUE(held.ok());
  const size_t before = allocator.count();
  ASSERT_TRUE(runtime.Run(inputs).ok());
  const size_t per_run = allocator.count() - before;
  int failed = 0;
  for (size_t k = 1; k <= per_run + 1; ++k) {
    SCOPED_TRACE(k);
    held = runtime.Run(inputs);
    ASSERT_TRUE(held.ok());
    allocator.FailAllocation(k);
    absl::StatusOr<c10::IValue> result = runtime.Run(inputs);
    allocator.FailAllocation(0);
    if (!result.ok()) {
      ++failed;
      EXPECT_EQ(result.status().code(), absl::StatusCode::kResourceExhausted) << result.status();
    }
    result = absl::StatusOr<c10::IValue>();
    held = absl::StatusOr<c10::IValue>();
    EXPECT_EQ(runtime.NumHeldValues(), 0u);
    const absl::Status checked = golden::CheckRunAgainstJit(prepared->module, runtime, inputs,
                                                            golden::WhenTheJitRaises::kFail);
    EXPECT_TRUE(checked.ok()) << checked;
  }
  // Most do fail (a failed run can change the next one's allocations: a
  // buffer it left unused, a size the planner learned).
  EXPECT_GE(2 * failed, static_cast<int>(per_run));
  std::cout << GetParam() << ": " << per_run + 1 << " runs with one failing allocation, " << failed
            << " ResourceExhausted, " << per_run + 1 - failed << " succeeded\n";
}

TEST_P(AllocationFailureTest, EveryAllocationOfModuleCreationMayFail) {
  CountingAllocator& allocator = CountingAllocator::Installed();
  const corpus::Model& model = corpus::ModelNamed(GetParam());
  absl::StatusOr<torch::jit::Module> module = corpus::Build(model);
  ASSERT_TRUE(module.ok()) << module.status();
  corpus::InputRng rng(3);
  const std::vector<c10::IValue> inputs = model.inputs(rng, 2);
  const size_t before = allocator.count();
  ASSERT_TRUE(StaticModule::FromModule(*module, false, Options(), inputs).ok());
  const size_t per_creation = allocator.count() - before;
  int tried = 0, errors = 0;
  for (size_t k = 1; k <= per_creation; k += 1 + per_creation / 200) {
    SCOPED_TRACE(k);
    ++tried;
    allocator.FailAllocation(k);
    absl::StatusOr<StaticModule::Ptr> prepared =
        StaticModule::FromModule(*module, false, Options(), inputs);
    allocator.FailAllocation(0);
    if (!prepared.ok()) {  // an error, not a crash
      ++errors;
      continue;
    }
    StaticRuntime runtime(*prepared);
    const absl::Status checked =
        golden::CheckRunAgainstJit(*module, runtime, inputs, golden::WhenTheJitRaises::kFail);
    EXPECT_TRUE(checked.ok()) << checked;
  }
  std::cout << GetParam() << ": " << tried << " module creations with one failing allocation (of "
            << per_creation << "), " << errors << " errors, " << tried - errors
            << " modules that ran correctly\n";
}

INSTANTIATE_TEST_SUITE_P(Corpus, AllocationFailureTest,
                         ::testing::Values("mlp", "cnn_two_stage", "ads_ranking", "if_branch",
                                           "lstm_cell_loop", "attention_block"));

}  // namespace
}  // namespace static_runtime
