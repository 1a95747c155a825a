// The differential harness: every corpus model runs on the static runtime and
// on the TorchScript JIT interpreter under each option set, for 3 input seeds,
// with shapes in the order small, larger, small (so a stale plan or a resizing
// bug shows), on one runtime. The whole output structure must match (container
// kinds, lengths, dict keys, dtypes, shapes, values with dtype-aware
// tolerances); the inputs must be unmodified, the runtime must hold no
// intermediate after every run, and the output of each run, which the test
// holds, must be unchanged by the next two. A failure names the model, the option set, the
// seed, the shapes and the first differing element. Then the same inputs run
// again with every kernel's outputs checked against its node's JIT operator,
// bit for bit except within the declared error bounds of the kernels that
// have one (golden::CheckNodesAgainstJit).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "runtime/static_runtime.h"
#include "verify/corpus.h"
#include "verify/option_sets.h"
#include "verify/reference.h"
#include "verify/run_check.h"

namespace static_runtime {
namespace {

constexpr int kSeeds = 3;
constexpr int64_t kShapes[] = {1, 2, 1};  // small, larger, small again

class DifferentialTest : public testing::TestWithParam<std::string> {};

TEST_P(DifferentialTest, MatchesTheJitInterpreter) {
  const corpus::Model& model = corpus::ModelNamed(GetParam());
  absl::StatusOr<torch::jit::Module> module = corpus::Build(model);
  ASSERT_TRUE(module.ok()) << module.status();
  int cases = 0;
  int checked_nodes = 0;  // node calls compared with their JIT operators
  for (const golden::OptionSet& option_set : golden::OptionSets()) {
    absl::StatusOr<StaticModule::Ptr> static_module =
        StaticModule::FromModule(*module, /*is_frozen=*/false, option_set.options);
    ASSERT_TRUE(static_module.ok()) << option_set.name << ": " << static_module.status();
    StaticRuntime runtime(*static_module);
    // The output of the run before, which the test holds, and a copy of it:
    // later runs must leave it alone (with managed output tensors the
    // caller releases it first, as documented: then it is empty).
    c10::IValue held, held_copy;
    for (int seed = 0; seed < kSeeds; ++seed) {
      for (size_t step = 0; step < std::size(kShapes); ++step) {
        corpus::InputRng rng(seed * 10 + kShapes[step]);
        const std::vector<c10::IValue> inputs = model.inputs(rng, kShapes[step]);
        const std::string where =
            absl::StrCat("model ", model.name, ", options ", option_set.name, ", seed ", seed,
                         ", run ", step + 1, " of {small, larger, small}, input shapes ",
                         reference::Shapes(c10::ivalue::Tuple::create(inputs)));
        c10::IValue output;
        const absl::Status run = golden::CheckRunAgainstJit(
            *module, runtime, inputs, golden::WhenTheJitRaises::kFail, &output);
        EXPECT_TRUE(run.ok()) << where << ": " << run.message();
        const absl::StatusOr<golden::NodeCheckCounts> nodes =
            golden::CheckNodesAgainstJit(runtime, inputs);
        EXPECT_TRUE(nodes.ok()) << where << ": " << nodes.status().message();
        if (nodes.ok()) checked_nodes += nodes->checked;
        const absl::Status held_unchanged =
            reference::Compare(held_copy, held, reference::Tolerance::kBitwise);
        EXPECT_TRUE(held_unchanged.ok())
            << where << ": the output of the run before, which the caller holds, changed: "
            << held_unchanged.message();
        held = output;
        held_copy = reference::DeepCopy(output);
        ++cases;
      }
    }
  }
  EXPECT_EQ(cases, static_cast<int>(golden::OptionSets().size()) * kSeeds * std::size(kShapes));
  EXPECT_GT(checked_nodes, 0) << "no node was checked against its JIT operator";
}

std::vector<std::string> ModelNames() {
  std::vector<std::string> names;
  for (const corpus::Model& model : corpus::Models()) names.push_back(model.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Corpus, DifferentialTest, testing::ValuesIn(ModelNames()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

TEST(CorpusTest, CoversTheModelKindsTheRuntimeIsJudgedOn) {
  const std::vector<std::string> names = ModelNames();
  EXPECT_GE(names.size(), 30u);
  for (const char* required : {"mlp",
                               "conv_bn_residual",
                               "cnn_two_stage",
                               "cnn_depthwise_se",
                               "cnn_fire_ceil_maxpool",
                               "cnn_channel_shuffle",
                               "cnn_grouped_dilated",
                               "conv1d_temporal",
                               "ads_ranking",
                               "ads_dict_features",
                               "attention_block",
                               "transformer_encoder",
                               "lstm_cell_loop",
                               "dict_input",
                               "containers_out",
                               "tuple_io",
                               "if_branch",
                               "loop_input_trip_count",
                               "while_loop",
                               "inplace_mutation",
                               "view_of_input_returned",
                               "view_of_intermediate_returned",
                               "int_and_bool_tensors",
                               "scalar_outputs"}) {
    EXPECT_TRUE(std::find(names.begin(), names.end(), required) != names.end()) << required;
  }
}

}  // namespace
}  // namespace static_runtime
