#include "verify/verify_model.h"

#include <mutex>
#include <string>

#include "ATen/ATen.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "load/load.h"
#include "ops/kernels.h"
#include "verify/bounded_test_kernels.h"
#include "verify/corpus.h"
#include "verify/wrong_flip_kernel.h"

namespace static_runtime {
namespace verify {
namespace {

using testing::AllOf;
using testing::HasSubstr;

// The runtime's registry gets kernels wrong on purpose: aten::flip's
// (//verify:wrong_flip_kernel); aten::logit's, whose rounding is within its
// declared bound, and aten::rad2deg's, which clobbers its input
// (//verify:bounded_test_kernels).
class VerifyTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    static std::once_flag once;
    std::call_once(once, [] {
      RegisterWrongFlipKernel(GlobalKernels());
      RegisterBoundedTestKernels(GlobalKernels());
    });
  }
};

VerifyConfig TwoInputSets() {
  VerifyConfig config;
  config.input_sets = {{"a", {at::randn({4, 3})}}, {"b", {at::randn({2, 3})}}};
  return config;
}

TEST_F(VerifyTest, PassesOnACorrectModelUnderEveryOptionSet) {
  absl::StatusOr<torch::jit::Module> module = ModuleFromSource(
      "def forward(self, x):\n"
      "    y = torch.relu(x * 2.0 + 1.0)\n"
      "    return torch.cat([y, x.sigmoid()], 1).sum(1), y\n");
  ASSERT_TRUE(module.ok()) << module.status();
  const VerifyReport report = Verify(*module, TwoInputSets());
  EXPECT_TRUE(report.passed()) << FormatVerifyReport(report, "m");
  EXPECT_GE(report.option_sets, 9);
  EXPECT_EQ(report.runs, report.option_sets * 4);  // 2 rounds over 2 input sets
  EXPECT_THAT(FormatVerifyReport(report, "m"), HasSubstr("0 failed: PASSED"));
  EXPECT_THAT(VerifyReportJson(report, "m"), HasSubstr("\"passed\": true"));
}

TEST_F(VerifyTest, NamesTheKernelAndElementOfAWrongResult) {
  absl::StatusOr<torch::jit::Module> module =
      ModuleFromSource("def forward(self, x):\n    return torch.flip(x, [0]) * 2.0\n");
  ASSERT_TRUE(module.ok()) << module.status();
  const VerifyReport report = Verify(*module, TwoInputSets());
  ASSERT_FALSE(report.passed());
  const std::string text = FormatVerifyReport(report, "m");
  EXPECT_THAT(text, AllOf(HasSubstr("FAILED [as given] run 1 (a)"),
                          HasSubstr("outputs and inputs after the run equal the JIT's"),
                          HasSubstr("value at flat index 0"), HasSubstr("aten::flip"),
                          HasSubstr("native kernel")))
      << text;
  EXPECT_THAT(VerifyReportJson(report, "m"),
              AllOf(HasSubstr("\"passed\": false"), HasSubstr("\"option_set\": \"as given\"")));
}

// Inputs the JIT itself raises on fail once, not once per option set and run.
TEST_F(VerifyTest, InputsTheJitRaisesOnFailOnce) {
  absl::StatusOr<torch::jit::Module> module = ModuleFromSource(
      "def forward(self, x):\n"
      "    assert x.dim() == 2, 'expected a matrix'\n"
      "    return x * 2.0\n");
  ASSERT_TRUE(module.ok()) << module.status();
  VerifyConfig config = TwoInputSets();
  config.input_sets.insert(config.input_sets.begin() + 1, {"vector", {at::randn({5})}});
  const VerifyReport report = Verify(*module, config);
  ASSERT_EQ(report.failures.size(), 1u) << FormatVerifyReport(report, "m");
  EXPECT_EQ(report.failures[0].option_set, "as given");
  EXPECT_EQ(report.failures[0].run, 2);
  EXPECT_EQ(report.failures[0].input_set, "vector");
  EXPECT_THAT(report.failures[0].detail,
              AllOf(HasSubstr("the JIT interpreter raised"), HasSubstr("expected a matrix")));
  // The other input sets still ran under every option set, twice.
  EXPECT_EQ(report.runs, report.option_sets * 4 + 1);
}

// Dropout in training mode (Tacotron2's prenet keeps it in eval) and other
// random draws: each side starts from the same generator state, so the
// same draws in the same order give the JIT's result.
TEST_F(VerifyTest, AModelDrawingRandomNumbersGetsTheJitsDraws) {
  absl::StatusOr<torch::jit::Module> module = ModuleFromSource(
      "def forward(self, x):\n"
      "    h = torch.dropout(torch.relu(x * 2.0), 0.5, True)\n"
      "    return h + torch.rand_like(h), torch.dropout(h, 0.2, True).sum()\n");
  ASSERT_TRUE(module.ok()) << module.status();
  const VerifyReport report = Verify(*module, TwoInputSets());
  EXPECT_TRUE(report.passed()) << FormatVerifyReport(report, "m");
}

// As the JIT does, the runtime writes to the caller's input; verify compares
// what both runs left of the inputs and warns.
TEST_F(VerifyTest, AModelWritingToItsInputsPassesWithAWarning) {
  absl::StatusOr<torch::jit::Module> module = ModuleFromSource(
      "def forward(self, x, y):\n    x.add_(1.0)\n    y.mul_(2.0)\n    return x + y\n");
  ASSERT_TRUE(module.ok()) << module.status();
  VerifyConfig config;
  config.input_sets = {{"a", {at::randn({2}), at::randn({2})}}};
  const VerifyReport report = Verify(*module, config);
  const std::string text = FormatVerifyReport(report, "m");
  EXPECT_TRUE(report.passed()) << text;
  EXPECT_THAT(text,
              AllOf(HasSubstr("warning: the model writes to its inputs"), HasSubstr("PASSED")));
}

// A model that changes its own state (a call counter, a buffer it
// accumulates into), frozen or not: every run depends on the runs before
// it, on both sides alike. The caller's module keeps its state.
TEST_F(VerifyTest, AModelChangingItsOwnStatePassesWithAWarning) {
  const char* counter =
      "def forward(self, x):\n"
      "    self.count += 1\n"
      "    return x * float(self.count)\n";
  const char* accumulator =
      "def forward(self, x):\n"
      "    self.running.add_(x.mean(0))\n"
      "    return x - self.running\n";
  for (const char* source : {counter, accumulator}) {
    for (bool frozen : {false, true}) {
      torch::jit::Module module("__torch__.Accumulates");
      module.register_attribute("count", c10::IntType::get(), int64_t{0});
      module.register_buffer("running", at::zeros({3}));
      module.define(source);
      module.eval();
      if (frozen) module = torch::jit::freeze(module);  // keeps what forward changes
      VerifyConfig config = TwoInputSets();
      config.is_frozen = frozen;
      const VerifyReport report = Verify(module, config);
      const std::string text = FormatVerifyReport(report, "m");
      EXPECT_TRUE(report.passed()) << (frozen ? "frozen: " : "") << source << text;
      EXPECT_THAT(text, HasSubstr("warning: the model changes its own attributes")) << source;
      // (Freezing drops the attribute the forward does not use.)
      if (module.hasattr("count")) EXPECT_EQ(module.attr("count").toInt(), 0) << source;
      if (module.hasattr("running")) {
        EXPECT_TRUE(module.attr("running").toTensor().equal(at::zeros({3}))) << source;
      }
    }
  }
}

// The node-by-node check still runs on such a model (on a runtime of its
// own): it names the wrong kernel.
TEST_F(VerifyTest, AModelChangingItsOwnStateGetsTheNodeCheck) {
  torch::jit::Module module("__torch__.Counts");
  module.register_attribute("count", c10::IntType::get(), int64_t{0});
  module.define(
      "def forward(self, x):\n"
      "    self.count += 1\n"
      "    return torch.flip(x, [0]) * float(self.count)\n");
  module.eval();
  const VerifyReport report = Verify(module, TwoInputSets());
  const std::string text = FormatVerifyReport(report, "m");
  EXPECT_FALSE(report.passed()) << text;
  EXPECT_THAT(text,
              AllOf(HasSubstr("every kernel gives its node's JIT result"), HasSubstr("aten::flip")))
      << text;
}

// A kernel's declared rounding can change a discrete choice after it (here
// an argmax between two equal values, as a detector's sort between equal
// scores): every node still gives its JIT operator's result, so verify
// passes and says why the outputs differ.
// So too in a model that sets a flag of its own, as torchvision's detection
// models do the first time they warn.
TEST_F(VerifyTest, OutputsChangedByABoundedKernelsRoundingPassWithAWarning) {
  for (bool sets_a_flag : {false, true}) {
    torch::jit::Module module("__torch__.Ties");
    module.register_attribute("warned", c10::BoolType::get(), false);
    module.define(sets_a_flag ? "def forward(self, x):\n"
                                "    self.warned = True\n"
                                "    y = torch.logit(x)\n"
                                "    return torch.argmax(y), y\n"
                              : "def forward(self, x):\n"
                                "    y = torch.logit(x)\n"
                                "    return torch.argmax(y), y\n");
    module.eval();
    VerifyConfig config;
    config.input_sets = {{"ties", {at::tensor({0.3f, 0.3f, 0.1f})}}};
    const VerifyReport report = Verify(module, config);
    const std::string text = FormatVerifyReport(report, "m");
    EXPECT_TRUE(report.passed()) << text;
    EXPECT_THAT(text,
                AllOf(HasSubstr("warning: outputs differ from the JIT's"), HasSubstr("output[0]"),
                      HasSubstr("1 calls"), HasSubstr("--prepack-weights=false")))
        << text;
  }
}

// A value changed between the node that made it and a node reading it (what
// memory recycled while in use does) fails, though every kernel computes
// right from what it reads and the changing kernel has a declared bound.
TEST_F(VerifyTest, AValueChangedWhileInUseFails) {
  absl::StatusOr<torch::jit::Module> module = ModuleFromSource(
      "def forward(self, x):\n"
      "    y = x * 2.0\n"
      "    z = torch.rad2deg(y)\n"
      "    return z + y\n");
  ASSERT_TRUE(module.ok()) << module.status();
  const VerifyReport report = Verify(*module, TwoInputSets());
  ASSERT_FALSE(report.passed());
  const std::string text = FormatVerifyReport(report, "m");
  EXPECT_THAT(text, AllOf(HasSubstr("every kernel gives its node's JIT result"),
                          HasSubstr("(aten::add), input 1"),
                          HasSubstr("changed between the node that made it and this one")))
      << text;
}

// Every corpus model passes, on two input sets of different shapes.
TEST_F(VerifyTest, PassesOnEveryCorpusModel) {
  for (const corpus::Model& model : corpus::Models()) {
    absl::StatusOr<torch::jit::Module> module = corpus::Build(model);
    ASSERT_TRUE(module.ok()) << model.name << ": " << module.status();
    VerifyConfig config;
    config.rounds = 1;
    for (int64_t size : {1, 2}) {
      corpus::InputRng rng(size);
      config.input_sets.push_back({absl::StrCat("size ", size), model.inputs(rng, size)});
    }
    const VerifyReport report = Verify(*module, config);
    EXPECT_TRUE(report.passed()) << FormatVerifyReport(report, model.name);
  }
}

}  // namespace
}  // namespace verify
}  // namespace static_runtime
