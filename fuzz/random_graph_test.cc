// The random graph property: for random well-typed programs (fuzz/random_program.h)
// under a random option set, the static runtime returns what the JIT
// interpreter returns, at batch sizes small, large, small on one runtime,
// leaves the inputs unmodified, holds no intermediate afterwards, leaves
// the output of the run before (which the test holds) alone, and warns
// what the JIT warns; where the JIT raises, the runtime returns an error and
// stays usable. RapidCheck
// shrinks a failure to a minimal program and prints it as TorchScript source
// and as the prepared graph's IR. Reproduce a failure with the seed it prints:
//   bazel test //fuzz:random_graph_test --test_env=RC_PARAMS="replay=..."
//
// The generator is checked too: every op of the table is emitted and the
// programs it makes compile and (almost always) run on the JIT.
#include <map>
#include <random>
#include <regex>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "fuzz/random_program.h"
#include "gtest/gtest.h"
#include "load/load.h"
#include "rapidcheck/gtest.h"
#include "runtime/static_runtime.h"
#include "torch/csrc/jit/passes/inliner.h"
#include "verify/option_sets.h"
#include "verify/recorded_warnings.h"
#include "verify/reference.h"
#include "verify/run_check.h"

namespace rc {

template <>
struct Arbitrary<static_runtime::fuzz::Gene> {
  static Gen<static_runtime::fuzz::Gene> arbitrary() {
    using static_runtime::fuzz::Gene;
    const auto choice = gen::inRange<uint32_t>(0, 1000);
    return gen::build<Gene>(gen::set(&Gene::op, gen::inRange<uint32_t>(0, 1000)),
                            gen::set(&Gene::a, choice), gen::set(&Gene::b, choice),
                            gen::set(&Gene::c, choice));
  }
};

template <>
struct Arbitrary<static_runtime::fuzz::ProgramSpec> {
  static Gen<static_runtime::fuzz::ProgramSpec> arbitrary() {
    using static_runtime::fuzz::Gene;
    using static_runtime::fuzz::ProgramSpec;
    return gen::build<ProgramSpec>(
        gen::set(&ProgramSpec::inputs,
                 gen::resize(3, gen::nonEmpty(gen::arbitrary<std::vector<Gene>>()))),
        gen::set(&ProgramSpec::body, gen::resize(24, gen::arbitrary<std::vector<Gene>>())),
        gen::set(&ProgramSpec::extra_outputs, gen::resize(2, gen::container<std::vector<uint32_t>>(
                                                                 gen::inRange<uint32_t>(0, 1000)))),
        gen::set(&ProgramSpec::small_batch, gen::inRange<int64_t>(1, 4)),
        gen::set(&ProgramSpec::large_batch, gen::inRange<int64_t>(4, 8)));
  }
};

}  // namespace rc

namespace static_runtime {
namespace fuzz {

void showValue(const Gene& gene, std::ostream& os) {
  os << "{" << gene.op << ", " << gene.a << ", " << gene.b << ", " << gene.c << "}";
}

void showValue(const ProgramSpec& spec, std::ostream& os) {
  auto genes = [&](const std::vector<Gene>& list) {
    os << "[";
    for (size_t i = 0; i < list.size(); ++i) {
      if (i > 0) os << ", ";
      showValue(list[i], os);
    }
    os << "]";
  };
  os << "inputs ";
  genes(spec.inputs);
  os << ", body ";
  genes(spec.body);
  os << ", extra outputs " << spec.extra_outputs.size() << ", batches " << spec.small_batch << "/"
     << spec.large_batch << " (the program is printed below)";
}

namespace {

std::string InlinedForward(torch::jit::Module& module) {
  std::shared_ptr<torch::jit::Graph> graph = module.get_method("forward").graph()->copy();
  torch::jit::Inline(*graph);
  return graph->toString(false);
}

RC_GTEST_PROP(RandomGraphTest, StaticRuntimeMatchesTheJit, ()) {
  const ProgramSpec spec = *rc::gen::arbitrary<ProgramSpec>();
  const Program program = BuildProgram(spec);
  const auto& option_sets = golden::OptionSets();
  const golden::OptionSet& option_set =
      option_sets[*rc::gen::inRange<size_t>(0, option_sets.size())];
  const uint64_t seed = *rc::gen::inRange<uint64_t>(0, 1000);
  RC_CLASSIFY(program.ops.size() >= 12, "12 or more statements");
  // The shapes that bugs in alias, lifetime and rewrite rules need (fuzz/op_rules.cc).
  RC_CLASSIFY(absl::c_linear_search(program.ops, "used_in_and_after_chain"),
              "a value used inside and after a pointwise chain");
  static const std::regex kSwapOrView(
      R"((v\d+), \1_prev = \1_prev(\.detach\(\))?, |\.detach\(\)\n)");
  RC_CLASSIFY(std::regex_search(program.source, kSwapOrView),
              "a loop swapping or re-aliasing its carried values");
  RC_CLASSIFY(absl::c_linear_search(program.ops, "is_contiguous") ||
                  absl::c_linear_search(program.ops, "stride"),
              "strides or contiguity read");
  RC_CLASSIFY(option_set.name == "managed_output_tensors",
              "outputs held across runs under managed_output_tensors");

  absl::StatusOr<torch::jit::Module> module = ModuleFromSource(program.source, program.parameters);
  if (!module.ok()) {
    RC_FAIL(absl::StrCat("the generator made a program the compiler rejects: ",
                         module.status().message(), "\n", program.source));
  }
  const std::string context =
      absl::StrCat("options ", option_set.name, ", input seed ", seed, "\nprogram:\n",
                   program.source, "graph:\n", InlinedForward(*module));
  absl::StatusOr<StaticModule::Ptr> static_module =
      StaticModule::FromModule(*module, /*is_frozen=*/false, option_set.options);
  if (!static_module.ok()) {
    RC_FAIL(absl::StrCat("preparation failed: ", static_module.status().message(), "\n", context));
  }
  StaticRuntime runtime(*static_module);
  const int64_t batches[] = {spec.small_batch, spec.large_batch, spec.small_batch};
  c10::IValue held, held_copy;  // the run before's output, which the test holds
  for (int run = 0; run < 3; ++run) {
    const std::vector<c10::IValue> inputs = program.MakeInputs(seed + run, batches[run]);
    const std::string where =
        absl::StrCat("run ", run + 1, " of {small, large, small}, input shapes ",
                     reference::Shapes(c10::ivalue::Tuple::create(inputs)), ", ", context,
                     "prepared graph:\n", (*static_module)->graph()->toString(false));
    c10::IValue output;
    const absl::Status checked = golden::CheckRunAgainstJit(
        *module, runtime, inputs, golden::WhenTheJitRaises::kExpectAnError, &output);
    if (!checked.ok()) RC_FAIL(absl::StrCat(checked.message(), "\n", where));
    const absl::Status held_unchanged =
        reference::Compare(held_copy, held, reference::Tolerance::kBitwise);
    if (!held_unchanged.ok()) {
      RC_FAIL(absl::StrCat("the output of the run before, which the caller holds, changed: ",
                           held_unchanged.message(), "\n", where));
    }
    held = output;
    held_copy = reference::DeepCopy(output);
  }
  // What the runtime warns (torch.warn in branches and loops) is what the
  // JIT warns, run by run. Not with forks: the JIT warns there on a thread
  // of its pool, whose warnings no handler of this thread sees.
  const bool forks = absl::c_linear_search(program.ops, "fork");
  for (int run = 0; run < 2 && !forks; ++run) {
    const std::vector<c10::IValue> inputs = program.MakeInputs(seed + run, batches[run]);
    golden::RecordedWarnings jit_warnings;
    try {
      module->forward(reference::DeepCopy(inputs));
    } catch (const std::exception&) {
      continue;  // the checks above compared the errors
    }
    golden::RecordedWarnings our_warnings;
    const absl::StatusOr<c10::IValue> ours = runtime.Run(reference::DeepCopy(inputs));
    runtime.ReleaseOutputs();
    RC_ASSERT(ours.ok());
    if (our_warnings.messages != jit_warnings.messages) {
      RC_FAIL(absl::StrCat("warned ", absl::StrJoin(our_warnings.messages, "; "),
                           " where the JIT warned ", absl::StrJoin(jit_warnings.messages, "; "),
                           "\n", context));
    }
  }
}

// Random specs from a fixed seed, independent of RapidCheck.
std::vector<ProgramSpec> SampleSpecs(int count) {
  std::mt19937 random(7);
  auto number = [&] { return static_cast<uint32_t>(random() % 1000); };
  std::vector<ProgramSpec> specs(count);
  for (ProgramSpec& spec : specs) {
    spec.inputs.resize(1 + random() % 3);
    spec.body.resize(random() % 17);
    for (Gene& gene : spec.inputs) gene = {number(), number(), number(), number()};
    for (Gene& gene : spec.body) gene = {number(), number(), number(), number()};
    spec.extra_outputs.resize(random() % 3);
    for (uint32_t& output : spec.extra_outputs) output = number();
    spec.small_batch = 1 + random() % 3;
    spec.large_batch = 4 + random() % 4;
  }
  return specs;
}

TEST(RandomProgramTest, EveryOpIsEmittedAndProgramsRunOnTheJit) {
  std::map<std::string, int> emitted;
  int compiled = 0, ran = 0;
  // Enough programs that the rarest rule (one that needs a list made
  // earlier) is drawn.
  const std::vector<ProgramSpec> specs = SampleSpecs(1200);
  for (const ProgramSpec& spec : specs) {
    const Program program = BuildProgram(spec);
    for (const std::string& op : program.ops) ++emitted[op];
    absl::StatusOr<torch::jit::Module> module =
        ModuleFromSource(program.source, program.parameters);
    EXPECT_TRUE(module.ok()) << module.status() << "\n" << program.source;
    if (!module.ok()) continue;
    ++compiled;
    try {
      module->forward(program.MakeInputs(0, spec.small_batch));
      module->forward(program.MakeInputs(1, spec.large_batch));
      ++ran;
    } catch (const std::exception& error) {
      // Allowed (e.g. amax over an empty slice) as long as it is rare.
    }
  }
  for (const std::string& op : OpNames()) {
    EXPECT_GT(emitted[op], 0) << "the generator never emitted '" << op << "'";
  }
  EXPECT_EQ(compiled, static_cast<int>(specs.size()));
  EXPECT_GE(ran, static_cast<int>(specs.size() * 95 / 100));
}

TEST(RandomProgramTest, ShapesAreTrackedSymbolically) {
  // Input gene {_, 0, 2, 5}: float [B, 2, 2]; body: sum over dim 1 keeping it.
  ProgramSpec spec;
  spec.inputs = {{0, 0, 2, 5}};
  const auto& names = OpNames();
  const uint32_t sum =
      static_cast<uint32_t>(std::find(names.begin(), names.end(), "sum") - names.begin());
  spec.body = {{sum, 0, 1, 0}};
  const Program program = BuildProgram(spec);
  EXPECT_EQ(program.source,
            "def forward(self, x0: Tensor):\n"
            "    v1 = x0.sum(1, True)  # float[B, 1, 2]\n"
            "    return v1\n");
  ASSERT_EQ(program.inputs.size(), 1u);
  const std::vector<c10::IValue> inputs = program.MakeInputs(0, 3);
  EXPECT_EQ(inputs[0].toTensor().sizes(), at::IntArrayRef({3, 2, 2}));
}

}  // namespace
}  // namespace fuzz
}  // namespace static_runtime
