#include "load/load.h"

#include <cstdlib>
#include <fstream>
#include <string>

#include "ATen/ATen.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rapidcheck/gtest.h"

namespace static_runtime {
namespace {

using ::testing::HasSubstr;

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return absl::StrCat(dir != nullptr ? dir : "/tmp", "/", name);
}

constexpr char kLinearSource[] = R"(
def forward(self, x):
    return (x @ self.weight).relu() + 1.0
)";

TEST(ModuleFromSourceTest, CompilesAndRuns) {
  at::Tensor weight = at::ones({3, 2});
  auto module = ModuleFromSource(kLinearSource, {{"weight", weight}});
  ASSERT_TRUE(module.ok()) << module.status();
  at::Tensor x = at::tensor({1.0f, -2.0f, 3.0f}).reshape({1, 3});
  at::Tensor y = module->forward({x}).toTensor();
  EXPECT_TRUE(at::equal(y, at::full({1, 2}, 3.0f)));
}

TEST(ModuleFromSourceTest, BadSourceNamesTheProblem) {
  auto module = ModuleFromSource("def forward(self, x):\n    return x +\n");
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(module.status().message(), HasSubstr("cannot compile TorchScript source"));
}

TEST(LoadModuleTest, SavedModuleRoundTrips) {
  auto module = ModuleFromSource(kLinearSource, {{"weight", at::randn({4, 5})}});
  ASSERT_TRUE(module.ok()) << module.status();
  const std::string path = TempPath("linear.pt");
  module->save(path);

  auto loaded = LoadModuleFromFile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  at::Tensor x = at::randn({2, 4});
  EXPECT_TRUE(at::equal(loaded->forward({x}).toTensor(), module->forward({x}).toTensor()));
}

TEST(LoadModuleTest, MissingFileIsNotFound) {
  auto loaded = LoadModuleFromFile("/nonexistent/model.pt");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(loaded.status().message(), HasSubstr("/nonexistent/model.pt"));
}

TEST(LoadModuleTest, NonArchiveIsInvalidArgument) {
  const std::string path = TempPath("not_a_model.pt");
  std::ofstream(path) << "this is plain text, not a zip archive";
  auto loaded = LoadModuleFromFile(path);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(loaded.status().message(), HasSubstr(path));
  EXPECT_THAT(loaded.status().message(), HasSubstr("not a loadable TorchScript archive"));
}

TEST(ParseGraphIRTest, ParsesValidIR) {
  auto graph = ParseGraphIR(R"IR(
graph(%x : Tensor):
  %one : int = prim::Constant[value=1]()
  %y : Tensor = aten::relu(%x)
  %z : Tensor = aten::add(%y, %x, %one)
  return (%z)
)IR");
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ((*graph)->inputs().size(), 1u);
  EXPECT_EQ((*graph)->outputs().size(), 1u);
}

TEST(ParseGraphIRTest, TensorConstantsGetTheSameValuesOnEveryParse) {
  // LibTorch's parser leaves `<Tensor>` constants uninitialised; a golden
  // graph printed different garbage on another machine.
  const char* ir = R"IR(
graph(%x : Tensor):
  %w : Float(3, 5, strides=[5, 1], requires_grad=0, device=cpu) = prim::Constant[value=<Tensor>]()
  %i : Long(4, strides=[1], requires_grad=0, device=cpu) = prim::Constant[value=<Tensor>]()
  return (%w, %i)
)IR";
  auto first = ParseGraphIR(ir);
  auto second = ParseGraphIR(ir);
  ASSERT_TRUE(first.ok() && second.ok());
  auto constant = [](const std::shared_ptr<torch::jit::Graph>& graph, size_t output) {
    return graph->outputs()[output]->node()->t(torch::jit::attr::value);
  };
  const at::Tensor weight = constant(*first, 0);
  EXPECT_TRUE(at::equal(weight, constant(*second, 0)));
  EXPECT_TRUE(at::isfinite(weight).all().item<bool>());
  EXPECT_GT(weight.abs().sum().item<float>(), 0.0f);
  EXPECT_TRUE(at::equal(constant(*first, 1), at::zeros({4}, at::kLong)));
}

TEST(ParseGraphIRTest, UndefinedValueIsAnError) {
  auto graph = ParseGraphIR(R"IR(
graph(%x : Tensor):
  %y : Tensor = aten::relu(%undefined)
  return (%y)
)IR");
  ASSERT_FALSE(graph.ok());
  EXPECT_EQ(graph.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(graph.status().message(), HasSubstr("malformed graph IR"));
}

TEST(ParseGraphIRTest, DeeplyNestedBracketsAreAnErrorNotAStackOverflow) {
  // The IR fuzzer's finding: a type nested thousands of parentheses deep.
  const std::string deep = "graph(%x : " + std::string(5000, '(') + "Tensor" +
                           std::string(5000, ')') + "):\n  return (%x)\n";
  auto graph = ParseGraphIR(deep);
  ASSERT_FALSE(graph.ok());
  EXPECT_THAT(graph.status().message(), HasSubstr("brackets nest 5001 deep, at most 64"));
  // Brackets inside string constants do not count; moderate nesting parses.
  auto fine = ParseGraphIR(R"IR(
graph(%x : ((Tensor, Tensor), Tensor)):
  %s : str = prim::Constant[value="(((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((("]()
  return (%x, %s)
)IR");
  EXPECT_TRUE(fine.ok()) << fine.status();
}

TEST(ParseGraphIRTest, StructuralNodesWithTheWrongArityAreErrors) {
  // The IR fuzzer's finding: a ListUnpack without input crashed LibTorch's
  // constant propagation.
  auto no_input = ParseGraphIR(R"IR(
graph(%x : Tensor):
  %a : Tensor, %b : Tensor = prim::ListUnpack()
  return (%a)
)IR");
  ASSERT_FALSE(no_input.ok());
  EXPECT_THAT(no_input.status().message(), HasSubstr("prim::ListUnpack takes 1 input, has 0"));
  auto not_a_tuple = ParseGraphIR(R"IR(
graph(%x : Tensor):
  %a : Tensor, %b : Tensor = prim::TupleUnpack(%x)
  return (%a)
)IR");
  ASSERT_FALSE(not_a_tuple.ok());
  EXPECT_THAT(not_a_tuple.status().message(), HasSubstr("unpacks Tensor into 2 values"));
  auto bad_if = ParseGraphIR(R"IR(
graph(%c : bool):
  %y : int = prim::If(%c)
    block0():
      -> ()
    block1():
      -> ()
  return (%y)
)IR");
  ASSERT_FALSE(bad_if.ok());
  EXPECT_THAT(bad_if.status().message(), HasSubstr("yields the wrong number"));
}

// A random chain of unary and binary elementwise ops over one input, as IR.
std::string RandomChainIR(const std::vector<int>& choices) {
  static const char* const kUnary[] = {"relu", "sigmoid", "tanh", "neg", "exp"};
  std::string ir = "graph(%v0 : Tensor):\n  %one : int = prim::Constant[value=1]()\n";
  int last = 0;
  for (size_t i = 0; i < choices.size(); ++i) {
    const int choice = choices[i];
    const int next = static_cast<int>(i) + 1;
    if (choice % 6 == 5) {  // binary: combine the last value with an earlier one
      ir += absl::StrCat("  %v", next, " : Tensor = aten::add(%v", last, ", %v", choice % next,
                         ", %one)\n");
    } else {
      ir +=
          absl::StrCat("  %v", next, " : Tensor = aten::", kUnary[choice % 6], "(%v", last, ")\n");
    }
    last = next;
  }
  return absl::StrCat(ir, "  return (%v", last, ")\n");
}

RC_GTEST_PROP(ParseGraphIRProperty, PrintedGraphReparsesToTheSameGraph,
              (const std::vector<uint8_t>& raw_choices)) {
  std::vector<int> choices(raw_choices.begin(), raw_choices.end());
  auto graph = ParseGraphIR(RandomChainIR(choices));
  RC_ASSERT(graph.ok());
  // One constant plus one node per op.
  size_t nodes = 0;
  for (auto* node : (*graph)->nodes()) {
    (void)node;
    ++nodes;
  }
  RC_ASSERT(nodes == choices.size() + 1);
  const std::string printed = (*graph)->toString();
  auto reparsed = ParseGraphIR(printed);
  RC_ASSERT(reparsed.ok());
  RC_ASSERT((*reparsed)->toString() == printed);
}

RC_GTEST_PROP(ParseGraphIRProperty, TruncatedIRGivesAnErrorOrAGraph,
              (const std::vector<uint8_t>& raw_choices)) {
  std::vector<int> choices(raw_choices.begin(), raw_choices.end());
  const std::string ir = RandomChainIR(choices);
  const size_t cut = *rc::gen::inRange<size_t>(0, ir.size());
  auto graph = ParseGraphIR(ir.substr(0, cut));
  if (!graph.ok()) {
    RC_ASSERT(graph.status().code() == absl::StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace static_runtime
