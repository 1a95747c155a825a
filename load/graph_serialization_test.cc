// Round trips of every corpus model's prepared graph (under every option set,
// so fused groups' subgraphs are covered; forks are covered by
// runtime/package_test) through SerializeGraph
// and DeserializeGraph print the same IR; malformed texts and tables give
// errors naming what was wrong.
#include "load/graph_serialization.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "load/load.h"
#include "passes/prepare.h"
#include "verify/corpus.h"
#include "verify/option_sets.h"

namespace static_runtime {
namespace {

using ::testing::HasSubstr;

// The IR with unnamed values numbered in program order (a copy renumbers
// them), without source locations (subgraphs print theirs regardless).
std::string Print(torch::jit::Graph& graph) {
  std::vector<std::string> lines = absl::StrSplit(graph.copy()->toString(false), '\n');
  for (std::string& line : lines) line = line.substr(0, line.find(" # "));
  return absl::StrJoin(lines, "\n");
}

// `ir` with a "v" before each value name that starts with a digit and has a
// letter part ("%6_fused_bn" -> "%v6_fused_bn"), as the serializer renames
// them (numbered values such as "%6" stay).
std::string WithParseableNames(const std::string& ir) {
  std::string out;
  for (size_t i = 0; i < ir.size(); ++i) {
    out += ir[i];
    if (ir[i] != '%') continue;
    size_t end = i + 1;
    while (end < ir.size() && absl::ascii_isdigit(ir[end])) ++end;
    if (end > i + 1 && end < ir.size() && ir[end] == '_') out += 'v';
  }
  return out;
}

TEST(GraphSerializationTest, EveryPreparedCorpusGraphRoundTrips) {
  int fused_groups = 0;
  for (const corpus::Model& model : corpus::Models()) {
    absl::StatusOr<torch::jit::Module> module = corpus::Build(model);
    ASSERT_TRUE(module.ok()) << module.status();
    for (const golden::OptionSet& set : golden::OptionSets()) {
      SCOPED_TRACE(model.name + " / " + set.name);
      absl::StatusOr<PreparedGraph> prepared = PrepareModule(*module, false, set.options);
      ASSERT_TRUE(prepared.ok()) << prepared.status();
      absl::StatusOr<SerializedGraph> serialized = SerializeGraph(*prepared->graph);
      ASSERT_TRUE(serialized.ok()) << serialized.status();
      EXPECT_THAT(serialized->ir, Not(HasSubstr("<Tensor>")));
      absl::StatusOr<std::shared_ptr<torch::jit::Graph>> restored =
          DeserializeGraph(serialized->ir, serialized->table);
      ASSERT_TRUE(restored.ok()) << restored.status();
      EXPECT_EQ(Print(**restored), WithParseableNames(Print(*prepared->graph)));
      for (const torch::jit::Node* node : (*restored)->nodes()) {
        fused_groups += node->hasAttribute(c10::attr::Subgraph);
      }
    }
  }
  // The subgraph attributes were exercised.
  EXPECT_GT(fused_groups, 0);
}

TEST(GraphSerializationTest, TensorConstantsKeepTheirValues) {
  auto graph = std::make_shared<torch::jit::Graph>();
  const at::Tensor weight = at::randn({3, 4});
  torch::jit::Value* x = graph->addInput("x");
  torch::jit::Value* w = graph->insertConstant(weight);
  graph->registerOutput(graph->insert(c10::aten::mul, {x, w}));
  absl::StatusOr<SerializedGraph> serialized = SerializeGraph(*graph);
  ASSERT_TRUE(serialized.ok()) << serialized.status();
  absl::StatusOr<std::shared_ptr<torch::jit::Graph>> restored =
      DeserializeGraph(serialized->ir, serialized->table);
  ASSERT_TRUE(restored.ok()) << restored.status();
  int tensors = 0;
  for (const torch::jit::Node* node : (*restored)->nodes()) {
    if (node->kind() == c10::prim::Constant && node->output()->type()->cast<c10::TensorType>()) {
      EXPECT_TRUE(node->t(c10::attr::value).equal(weight));
      ++tensors;
    }
  }
  EXPECT_EQ(tensors, 1);
}

// A graph whose constant 2.5 is the table's only entry.
SerializedGraph SerializedScale() {
  absl::StatusOr<std::shared_ptr<torch::jit::Graph>> graph = ParseGraphIR(R"IR(
graph(%x : Tensor):
  %s : float = prim::Constant[value=2.5]()
  %y : Tensor = aten::mul(%x, %s)
  return (%y))IR");
  TORCH_CHECK(graph.ok());
  absl::StatusOr<SerializedGraph> serialized = SerializeGraph(**graph);
  TORCH_CHECK(serialized.ok());
  TORCH_CHECK(serialized->table.size() == 1);
  return *serialized;
}

TEST(GraphSerializationTest, MalformedInputsAreErrors) {
  const SerializedGraph good = SerializedScale();
  const auto error_of = [](const std::string& ir, const std::vector<c10::IValue>& table) {
    absl::StatusOr<std::shared_ptr<torch::jit::Graph>> graph = DeserializeGraph(ir, table);
    EXPECT_FALSE(graph.ok());
    return std::string(graph.status().message());
  };
  EXPECT_THAT(error_of(good.ir, {}), HasSubstr("table index 0 out of range [0, 0)"));
  EXPECT_THAT(error_of(good.ir, {c10::IValue("text")}), HasSubstr("table entry of type String"));
  EXPECT_THAT(error_of(absl::StrReplaceAll(good.ir, {{"sr_f__", "sr_q__"}}), good.table),
              HasSubstr("unknown kind"));
  EXPECT_THAT(error_of(absl::StrReplaceAll(good.ir, {{"aten::mul(%x", "aten::mul(%undefined"}}),
                       good.table),
              Not(HasSubstr("OK")));
  EXPECT_FALSE(DeserializeGraph("graph(", good.table).ok());
}

TEST(GraphSerializationTest, SubgraphsNestedTooDeepAreErrors) {
  // Entry 0 is a graph whose node's subgraph is entry 0 again.
  const std::string ir = R"IR(
graph(%x : Tensor):
  %y : Tensor = test::nested[sr_g__Subgraph=0](%x)
  return (%y))IR";
  absl::StatusOr<std::shared_ptr<torch::jit::Graph>> graph =
      DeserializeGraph(ir, {c10::IValue(ir)});
  ASSERT_FALSE(graph.ok());
  EXPECT_THAT(std::string(graph.status().message()), HasSubstr("nested more than 16 deep"));
}

// Types (prim::isinstance's) are kept as their annotations.
TEST(GraphSerializationTest, TypeAttributesRoundTripAsAnnotations) {
  auto graph = std::make_shared<torch::jit::Graph>();
  torch::jit::Node* node = graph->create(c10::prim::Uninitialized);
  const std::vector<c10::TypePtr> types = {
      c10::TensorType::get(), c10::ListType::ofInts(),
      c10::TupleType::create({c10::IntType::get(), c10::StringType::get()}),
      c10::OptionalType::create(c10::TensorType::get()),
      c10::DictType::create(c10::StringType::get(), c10::TensorType::get())};
  node->ty_(c10::Symbol::attr("type"), c10::IntType::get());
  node->tys_(c10::Symbol::attr("types"), types);
  graph->appendNode(node);
  graph->registerOutput(node->output());
  absl::StatusOr<SerializedGraph> serialized = SerializeGraph(*graph);
  ASSERT_TRUE(serialized.ok()) << serialized.status();
  absl::StatusOr<std::shared_ptr<torch::jit::Graph>> restored =
      DeserializeGraph(serialized->ir, serialized->table);
  ASSERT_TRUE(restored.ok()) << restored.status();
  const torch::jit::Node* back = *(*restored)->nodes().begin();
  EXPECT_EQ(*back->ty(c10::Symbol::attr("type")), *c10::IntType::get());
  const std::vector<c10::TypePtr> back_types = back->tys(c10::Symbol::attr("types"));
  ASSERT_EQ(back_types.size(), types.size());
  for (size_t i = 0; i < types.size(); ++i) {
    EXPECT_EQ(*back_types[i], *types[i]) << back_types[i]->str() << " vs " << types[i]->str();
  }
}

// A class has no annotation the parser reads back without its compilation
// unit; a table entry that is not a type is refused on the way back.
TEST(GraphSerializationTest, TypesThatDoNotReadBackAreRefused) {
  auto graph = std::make_shared<torch::jit::Graph>();
  torch::jit::Node* node = graph->create(c10::prim::Uninitialized);
  auto unit = std::make_shared<torch::jit::CompilationUnit>();
  node->ty_(c10::Symbol::attr("type"), c10::ClassType::create("__torch__.Box", unit));
  graph->appendNode(node);
  graph->registerOutput(node->output());
  absl::StatusOr<SerializedGraph> serialized = SerializeGraph(*graph);
  ASSERT_FALSE(serialized.ok());
  EXPECT_THAT(std::string(serialized.status().message()),
              HasSubstr("attribute 'type' of node prim::Uninitialized"));

  const std::string ir = R"IR(
graph():
  %y : Any = prim::Uninitialized[sr_ty__type=0]()
  return (%y))IR";
  absl::StatusOr<std::shared_ptr<torch::jit::Graph>> restored =
      DeserializeGraph(ir, {c10::IValue(std::string("List[NotAType"))});
  ASSERT_FALSE(restored.ok());
  EXPECT_THAT(std::string(restored.status().message()), HasSubstr("sr_ty__type"));
}

}  // namespace
}  // namespace static_runtime
