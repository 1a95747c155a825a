// The differential harness: every corpus model runs on the static runtime and
// on the TorchScript JIT interpreter under each option set, for 3 input seeds,
// with shapes in the order small, larger, small (so a stale plan or a resizing
// bug shows), on one runtime. The whole output structure must match (container
// kinds, lengths, dict keys, dtypes, shapes, values with dtype-aware
// tolerances); the inputs must be unmodified and the runtime must hold no
// intermediate after every run. A failure names the model, the option set, the
// seed, the shapes and the first differing element.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "golden/models/corpus.h"
#include "golden/reference.h"
#include "gtest/gtest.h"
#include "runtime/static_runtime.h"

namespace static_runtime {
namespace {

constexpr int kSeeds = 3;
constexpr int64_t kShapes[] = {1, 2, 1};  // small, larger, small again

struct OptionSet {
  std::string name;
  Options options;
};

std::vector<OptionSet> OptionSets() {
  Options no_out_variants;
  no_out_variants.enable_out_variant = false;
  no_out_variants.optimize_memory = false;
  Options no_memory_planning;
  no_memory_planning.optimize_memory = false;
  Options managed_outputs;
  managed_outputs.manage_output_tensors = true;
  Options no_copy_variants;
  no_copy_variants.use_copy_variants = false;
  Options no_rewrites = no_copy_variants;
  no_rewrites.use_maybe_copy_variants = false;
  no_rewrites.use_variadic_ops = false;
  no_rewrites.fuse_list_unpack = false;
  no_rewrites.hoist_dict_lookups = false;
  return {{"defaults", Options()},
          {"out_variants_off", no_out_variants},
          {"memory_planning_off", no_memory_planning},
          {"managed_output_tensors", managed_outputs},
          {"copy_variants_off", no_copy_variants},
          {"all_rewrites_off", no_rewrites}};
}

// The shapes of the tensors in `value` (nested), for failure messages.
std::string Shapes(const c10::IValue& value) {
  if (value.isTensor()) return c10::str(value.toTensor().sizes());
  std::vector<std::string> parts;
  if (value.isTuple()) {
    for (const c10::IValue& element : value.toTupleRef().elements()) parts.push_back(Shapes(element));
  } else if (value.isList()) {
    for (const c10::IValue& element : value.toListRef()) parts.push_back(Shapes(element));
  } else if (value.isGenericDict()) {
    for (const auto& entry : value.toGenericDict()) {
      parts.push_back(absl::StrCat(c10::str(entry.key()), ": ", Shapes(entry.value())));
    }
  } else {
    return c10::str(value);
  }
  return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
}

std::vector<c10::IValue> Copy(const std::vector<c10::IValue>& inputs) {
  return reference::DeepCopy(c10::ivalue::Tuple::create(inputs)).toTupleRef().elements().vec();
}

class DifferentialTest : public testing::TestWithParam<std::string> {};

TEST_P(DifferentialTest, MatchesTheJitInterpreter) {
  const corpus::Model& model = corpus::ModelNamed(GetParam());
  absl::StatusOr<torch::jit::Module> module = corpus::Build(model);
  ASSERT_TRUE(module.ok()) << module.status();
  int cases = 0;
  for (const OptionSet& option_set : OptionSets()) {
    absl::StatusOr<StaticModule::Ptr> static_module =
        StaticModule::FromModule(*module, /*is_frozen=*/false, option_set.options);
    ASSERT_TRUE(static_module.ok()) << option_set.name << ": " << static_module.status();
    StaticRuntime runtime(*static_module);
    for (int seed = 0; seed < kSeeds; ++seed) {
      for (size_t step = 0; step < std::size(kShapes); ++step) {
        corpus::InputRng rng(seed * 10 + kShapes[step]);
        const std::vector<c10::IValue> inputs = model.inputs(rng, kShapes[step]);
        const std::string where = absl::StrCat(
            "model ", model.name, ", options ", option_set.name, ", seed ", seed, ", run ",
            step + 1, " of {small, larger, small}, input shapes ",
            Shapes(c10::ivalue::Tuple::create(inputs)));
        const c10::IValue before = reference::DeepCopy(c10::ivalue::Tuple::create(inputs));
        const c10::IValue expected = module->forward(Copy(inputs));
        absl::StatusOr<c10::IValue> actual = runtime.Run(inputs);
        ASSERT_TRUE(actual.ok()) << where << ": " << actual.status();
        const absl::Status same = reference::Compare(expected, *actual);
        EXPECT_TRUE(same.ok()) << where << ": " << same.message();
        EXPECT_TRUE(reference::ExactlyEqual(before, c10::ivalue::Tuple::create(inputs)))
            << where << ": the run modified its inputs";
        runtime.ReleaseOutputs();
        EXPECT_EQ(runtime.NumHeldValues(), 0u) << where << ": intermediates left over";
        ++cases;
      }
    }
  }
  EXPECT_EQ(cases, static_cast<int>(OptionSets().size()) * kSeeds * std::size(kShapes));
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
  for (const char* required :
       {"mlp", "conv_bn_residual", "cnn_two_stage", "ads_ranking", "ads_dict_features",
        "attention_block", "transformer_encoder", "lstm_cell_loop", "dict_input",
        "containers_out", "tuple_io", "if_branch", "loop_input_trip_count", "while_loop",
        "inplace_mutation", "view_of_input_returned", "view_of_intermediate_returned",
        "int_and_bool_tensors", "scalar_outputs"}) {
    EXPECT_TRUE(std::find(names.begin(), names.end(), required) != names.end()) << required;
  }
}

}  // namespace
}  // namespace static_runtime
