// The registry's contract: every registered schema names a real JIT operator,
// every operator the passes introduce has a native kernel, and each native
// scalar kernel computes exactly what the JIT's own operator computes (or
// fails when it fails), over random arguments; the fallback refuses the
// instructions the interpreter runs only inside their whole graph.
#include "ops/core/registry.h"

#include <algorithm>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/operators/operators.h"
#include "load/load.h"
#include "ops/core/fallback.h"
#include "ops/core/out_variant_test_support.h"
#include "ops/kernels.h"
#include "torch/csrc/jit/frontend/function_schema_parser.h"

namespace static_runtime {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

TEST(RegistryTest, EverySchemaNamesAJitOperator) {
  EXPECT_EQ(absl::StrJoin(GlobalKernels().SchemasUnknownToJit(), "\n"), "");
}

// Two kernels of one kind for one schema would leave the choice to the
// order of registration (the first registered that accepts a node wins):
// registering the second aborts, naming both.
TEST(RegistryDeathTest, ASecondKernelOfOneKindForOneSchemaAborts) {
  KernelRegistry& registry = GlobalKernels();
  EXPECT_DEATH(registry.Add({KernelOp::Overload("aten::relu", ""), NodeKind::kOutVariant,
                             [](const torch::jit::Node*) { return Decline(); }}),
               "two kernels of one kind registered for one operator: "
               "'aten::relu\\(Tensor self\\) -> Tensor'");
}

// A registry of its own, as a test or a user builds one: records by
// overload and by node kind are found for their nodes only; a factory may
// look up other nodes in the registry it is in (a fused group's members do);
// a kernel added after lookups is found by the next one.
TEST(RegistryTest, ARegistryOfItsOwnFindsWhatWasAdded) {
  auto graph = ParseGraphIR(R"IR(
graph(%x : Tensor):
  %y : Tensor = aten::relu(%x)
  %z : Tensor = aten::sigmoid(%y)
  %l : Tensor[] = prim::ListConstruct(%y, %z)
  return (%l))IR");
  ASSERT_TRUE(graph.ok()) << graph.status();
  std::vector<torch::jit::Node*> nodes((*graph)->nodes().begin(), (*graph)->nodes().end());
  KernelRegistry registry;
  int relu_runs = 0;
  registry.Add(Native("aten::relu", "", [&relu_runs](NodeIO&) { ++relu_runs; }));
  registry.Add(NativeNodeKind("prim::ListConstruct", [&registry, &nodes](const torch::jit::Node*) {
    // Takes the list only while its first element's producer has a kernel.
    return registry.Find(nodes[0], true).has_value() ? KernelOffer([](NodeIO&) {}) : Decline();
  }));
  std::optional<KernelRegistry::Selected> relu = registry.Find(nodes[0], true);
  ASSERT_TRUE(relu.has_value());
  EXPECT_EQ(relu->kind, NodeKind::kNative);
  EXPECT_FALSE(relu->error_bound);
  EXPECT_FALSE(registry.Find(nodes[1], true).has_value());
  EXPECT_TRUE(registry.Find(nodes[2], true).has_value());
  registry.Add(OutVariant(
      "aten::sigmoid", "", [](NodeIO&) {},
      [](const std::vector<c10::IValue>&, const at::Tensor& exact) { return exact.abs(); }));
  std::optional<KernelRegistry::Selected> sigmoid = registry.Find(nodes[1], true);
  ASSERT_TRUE(sigmoid.has_value());
  EXPECT_EQ(sigmoid->kind, NodeKind::kOutVariant);
  EXPECT_TRUE(sigmoid->error_bound);
  EXPECT_FALSE(registry.Find(nodes[1], /*allow_out_variants=*/false).has_value());
  EXPECT_EQ(absl::StrJoin(registry.SourceFiles(), ","), "ops/registry_test.cc");
}

TEST(RegistryTest, NoSchemaHasTwoKernelsOfOneKind) {
  for (NodeKind kind : {NodeKind::kOutVariant, NodeKind::kNative}) {
    std::vector<std::string> ops;
    for (const std::string& op : GlobalKernels().Registered(kind)) {
      // One spelling per schema (a literal or a JIT operator's printed form).
      ops.push_back(op.find('(') == std::string::npos ? op
                                                      : c10::toString(torch::jit::parseSchema(op)));
    }
    std::sort(ops.begin(), ops.end());
    std::vector<std::string> repeated;
    for (size_t i = 1; i < ops.size(); ++i) {
      if (ops[i] == ops[i - 1]) repeated.push_back(ops[i]);
    }
    EXPECT_EQ(absl::StrJoin(repeated, "\n"), "") << "kind " << static_cast<int>(kind);
  }
}

TEST(RegistryTest, EveryRewriteOperatorHasANativeKernel) {
  ops::EnsureOperatorsRegistered();
  std::vector<std::string> native = GlobalKernels().Registered(NodeKind::kNative);
  std::vector<std::string> expected = {
      ops::kVariadicCat.toQualString(),   ops::kVariadicStack.toQualString(),
      ops::kSplitUnpacked.toQualString(), ops::kSplitWithSizesUnpacked.toQualString(),
      ops::kChunkUnpacked.toQualString(), ops::kUnbindUnpacked.toQualString(),
      ops::kUnpackDict.toQualString(),    ops::kOwnedRef.toQualString(),
      ops::kMaybeCopyTo.toQualString(),   ops::kVarTupleUnpack.toQualString()};
  for (const ops::CopyVariant& variant : ops::CopyVariants()) {
    expected.push_back(variant.copy_op);
  }
  for (const std::string& op : expected) {
    EXPECT_TRUE(std::find(native.begin(), native.end(), op) != native.end()) << op;
  }
}

TEST(RegistryTest, SelectsByExactSchemaNotByName) {
  // aten::add.int has a native kernel; aten::add.Tensor must not get it.
  auto graph = ParseGraphIR(R"IR(
graph(%a : int, %b : int, %x : Tensor):
  %one : int = prim::Constant[value=1]()
  %c : int = aten::add(%a, %b)
  %y : Tensor = aten::add(%x, %x, %one)
  return (%c, %y))IR");
  ASSERT_TRUE(graph.ok()) << graph.status();
  std::vector<torch::jit::Node*> nodes((*graph)->nodes().begin(), (*graph)->nodes().end());
  EXPECT_TRUE(GlobalKernels().Find(nodes[1], true).has_value());
  EXPECT_FALSE(GlobalKernels().Find(nodes[2], false).has_value());
}

TEST(RegistryTest, EmbeddingBagOutVariantOnlyWhenItsAuxiliaryOutputsAreUnused) {
  // The out variant computes the pooled output only.
  auto graph = ParseGraphIR(R"IR(
graph(%w : Tensor, %i : Tensor, %o : Tensor):
  %f : bool = prim::Constant[value=0]()
  %mode : int = prim::Constant[value=0]()
  %none : NoneType = prim::Constant()
  %a : Tensor, %a1 : Tensor, %a2 : Tensor, %a3 : Tensor = aten::embedding_bag(%w, %i, %o, %f, %mode, %f, %none, %f)
  %b : Tensor, %b1 : Tensor, %b2 : Tensor, %b3 : Tensor = aten::embedding_bag(%w, %i, %o, %f, %mode, %f, %none, %f)
  return (%a, %b, %b2))IR");
  ASSERT_TRUE(graph.ok()) << graph.status();
  std::vector<torch::jit::Node*> nodes((*graph)->nodes().begin(), (*graph)->nodes().end());
  auto pooled_only = GlobalKernels().Find(nodes[3], true);
  ASSERT_TRUE(pooled_only.has_value());
  EXPECT_EQ(pooled_only->kind, NodeKind::kOutVariant);
  auto bag_size_used = GlobalKernels().Find(nodes[4], true);
  EXPECT_FALSE(bag_size_used.has_value() && bag_size_used->kind == NodeKind::kOutVariant);
}

// A random value of a scalar type, including the awkward ones (0, negatives),
// or a list of 0 to 4 of them.
c10::IValue RandomScalar(const c10::TypePtr& type, std::mt19937_64& rng) {
  switch (type->kind()) {
    case c10::TypeKind::ListType: {
      const c10::TypePtr element = type->containedType(0);
      c10::impl::GenericList list(element);
      const int length = std::uniform_int_distribution<int>(0, 4)(rng);
      for (int i = 0; i < length; ++i) list.push_back(RandomScalar(element, rng));
      return list;
    }
    case c10::TypeKind::IntType:
      return std::uniform_int_distribution<int64_t>(-7, 7)(rng);
    case c10::TypeKind::FloatType:
      return std::uniform_int_distribution<int>(-20, 20)(rng) / 4.0;
    case c10::TypeKind::BoolType:
      return std::uniform_int_distribution<int>(0, 1)(rng) == 1;
    default:
      return c10::IValue();
  }
}

bool IsScalarType(const c10::TypePtr& type) {
  return type->kind() == c10::TypeKind::IntType || type->kind() == c10::TypeKind::FloatType ||
         type->kind() == c10::TypeKind::BoolType;
}

// A scalar type or a list of one (int[], float[]).
bool IsScalarOrListType(const c10::TypePtr& type) {
  return IsScalarType(type) ||
         (type->kind() == c10::TypeKind::ListType && IsScalarType(type->containedType(0)));
}

std::string Describe(const std::vector<c10::IValue>& values) {
  return absl::StrJoin(values, ", ", [](std::string* out, const c10::IValue& value) {
    std::ostringstream text;
    text << value;
    out->append(text.str());
  });
}

// Runs `kernel` on `inputs`; the output, or "<error>" if it throws.
std::string RunKernel(const Kernel& kernel, const std::vector<c10::IValue>& inputs) {
  testing::Slots slots(/*num_outputs=*/1);
  if (!slots.Run(kernel, inputs).empty()) return "<error>";
  std::ostringstream text;
  text << slots.Output(0).tagKind() << " " << slots.Output(0);
  return text.str();
}

// Instructions the interpreter runs only inside their whole graph get no
// fallback kernel (one that would crash or fail on its first run): the
// runtime runs them natively or refuses the model when it prepares it.
TEST(RegistryTest, FallbackRefusesInstructionsThatRunOnlyInTheirGraph) {
  for (const c10::Symbol kind : {c10::prim::Enter, c10::prim::Exit, c10::prim::fork,
                                 c10::prim::BailOut, c10::prim::Guard, c10::prim::profile}) {
    torch::jit::Graph graph;
    torch::jit::Value* input = graph.addInput()->setType(c10::TensorType::get());
    torch::jit::Node* node = graph.insertNode(graph.create(kind, {input}, 1));
    const absl::StatusOr<Kernel> kernel = MakeFallbackKernel(node);
    EXPECT_EQ(kernel.status().code(), absl::StatusCode::kUnimplemented) << kind.toQualString();
    EXPECT_THAT(std::string(kernel.status().message()),
                AllOf(HasSubstr(kind.toQualString()), HasSubstr("whole graph"),
                      HasSubstr("inputs: Tensor")));
  }
}

TEST(RegistryTest, ScalarKernelsMatchTheJitOnRandomArguments) {
  std::mt19937_64 rng(42);
  size_t checked_schemas = 0;
  for (const std::string& op : GlobalKernels().Registered(NodeKind::kNative)) {
    if (op.find('(') == std::string::npos) continue;
    const c10::FunctionSchema schema = torch::jit::parseSchema(op);
    if (schema.returns().size() != 1 || !IsScalarType(schema.returns()[0].type())) continue;
    bool scalar_arguments = !schema.arguments().empty();
    for (const auto& argument : schema.arguments()) {
      scalar_arguments = scalar_arguments && IsScalarOrListType(argument.type());
    }
    if (!scalar_arguments) continue;
    std::vector<std::string> params;
    std::vector<std::string> args;
    for (size_t i = 0; i < schema.arguments().size(); ++i) {
      params.push_back(absl::StrCat("%a", i, " : ", schema.arguments()[i].type()->str()));
      args.push_back(absl::StrCat("%a", i));
    }
    const std::string ir = absl::StrCat(
        "graph(", absl::StrJoin(params, ", "), "):\n  %r : ", schema.returns()[0].type()->str(),
        " = ", schema.name(), "(", absl::StrJoin(args, ", "), ")\n  return (%r)\n");
    auto graph = ParseGraphIR(ir);
    ASSERT_TRUE(graph.ok()) << graph.status();
    const torch::jit::Node* node = *(*graph)->nodes().begin();
    ASSERT_NE(node->maybeSchema(), nullptr) << ir;
    if (node->schema().overload_name() != schema.overload_name()) continue;  // ambiguous IR
    auto native = GlobalKernels().Find(node, true);
    ASSERT_TRUE(native.has_value()) << op;
    absl::StatusOr<Kernel> jit = MakeFallbackKernel(node);
    ASSERT_TRUE(jit.ok()) << jit.status();
    for (int trial = 0; trial < 200; ++trial) {
      std::vector<c10::IValue> inputs;
      for (const auto& argument : schema.arguments()) {
        inputs.push_back(RandomScalar(argument.type(), rng));
      }
      if (schema.name() == "aten::remainder" && inputs[1] == c10::IValue(int64_t{0})) {
        // The JIT's own remainder.int dies with SIGFPE here; ours raises.
        ASSERT_EQ(RunKernel(native->kernel, inputs), "<error>");
        continue;
      }
      ASSERT_EQ(RunKernel(native->kernel, inputs), RunKernel(*jit, inputs))
          << op << " on " << Describe(inputs);
    }
    ++checked_schemas;
  }
  EXPECT_GE(checked_schemas, 40u);
}

}  // namespace
}  // namespace static_runtime

namespace static_runtime {
namespace {

// A dict or list input and what the kernel did to it, as text.
std::string Show(const c10::IValue& value) {
  std::ostringstream text;
  text << value.tagKind() << " " << value;
  return text.str();
}

// A copy of a dict or list (its own container, the same elements).
c10::IValue Copy(const c10::IValue& value) {
  if (value.isGenericDict()) return value.toGenericDict().copy();
  if (value.isList()) return value.toList().copy();
  return value;
}

// A graph of one `op` node on inputs of `types` with `outputs` results.
std::shared_ptr<torch::jit::Graph> OneNode(const char* op, const std::vector<c10::TypePtr>& types,
                                           const std::vector<c10::TypePtr>& outputs) {
  auto graph = std::make_shared<torch::jit::Graph>();
  std::vector<torch::jit::Value*> inputs;
  for (const c10::TypePtr& type : types) inputs.push_back(graph->addInput()->setType(type));
  torch::jit::Node* node =
      graph->insertNode(graph->create(c10::Symbol::fromQualString(op), inputs, outputs.size()));
  for (size_t i = 0; i < outputs.size(); ++i) {
    node->output(i)->setType(outputs[i]);
    graph->registerOutput(node->output(i));
  }
  return graph;
}

// Item assignment and a dict's keys, values and items: the native kernel's
// outputs and its writes to the container equal the JIT operator's,
// errors included.
TEST(RegistryTest, ContainerKernelsMatchTheJit) {
  const c10::TypePtr str = c10::StringType::get(), tensor = c10::TensorType::get();
  const c10::TypePtr integer = c10::IntType::get(), real = c10::FloatType::get();
  c10::impl::GenericDict by_name(str, tensor);
  by_name.insert("a", at::ones({2}));
  by_name.insert("b", at::zeros({1}));
  c10::impl::GenericDict by_number(integer, real);
  by_number.insert(int64_t{3}, 0.5);
  by_number.insert(int64_t{-1}, 2.0);
  c10::impl::GenericList numbers(integer);
  for (int64_t i : {4, 5, 6}) numbers.push_back(i);
  const c10::TypePtr names = c10::DictType::create(str, tensor);
  const c10::TypePtr reals = c10::DictType::create(integer, real);
  const c10::TypePtr ints = c10::ListType::create(integer);
  struct Case {
    std::shared_ptr<torch::jit::Graph> graph;
    std::vector<std::vector<c10::IValue>> inputs;
  };
  std::vector<Case> cases = {
      {OneNode("aten::_set_item", {names, str, tensor}, {}),
       {{by_name, "a", at::full({3}, 7.0)}, {by_name, "new", at::ones({1})}}},
      {OneNode("aten::_set_item", {reals, integer, real}, {}),
       {{by_number, int64_t{3}, 1.5}, {by_number, int64_t{9}, -1.0}}},
      {OneNode("aten::_set_item", {ints, integer, integer}, {ints}),
       {{numbers, int64_t{0}, int64_t{9}},
        {numbers, int64_t{-1}, int64_t{9}},
        {numbers, int64_t{3}, int64_t{9}},
        {numbers, int64_t{-4}, int64_t{9}}}},
      // str of an int names dict keys in loops (its own path), of others
      {OneNode("aten::str", {integer}, {str}),
       {{int64_t{0}}, {int64_t{-42}}, {std::numeric_limits<int64_t>::min()}}},
      {OneNode("aten::str", {real}, {str}), {{1.5}, {-0.0}}},
      {OneNode("aten::str", {str}, {str}), {{"key"}}},
      {OneNode("aten::str", {c10::DeviceObjType::get()}, {str}),
       {{c10::Device(c10::kCPU)}, {c10::Device(c10::kCPU, 0)}, {c10::Device(c10::kCUDA, 1)}}},
  };
  for (const auto& [type, dict] : {std::pair{names, by_name}, std::pair{reals, by_number}}) {
    const c10::TypePtr key = dict.keyType(), value = dict.valueType();
    cases.push_back({OneNode("aten::keys", {type}, {c10::ListType::create(key)}), {{dict}}});
    cases.push_back({OneNode("aten::values", {type}, {c10::ListType::create(value)}), {{dict}}});
    cases.push_back({OneNode("aten::items", {type},
                             {c10::ListType::create(c10::TupleType::create({key, value}))}),
                     {{dict}}});
  }
  for (const Case& c : cases) {
    const torch::jit::Node* node = *c.graph->nodes().begin();
    std::ostringstream where;
    where << *c.graph;
    ASSERT_NE(node->maybeSchema(), nullptr) << where.str();
    auto native = GlobalKernels().Find(node, true);
    ASSERT_TRUE(native.has_value() && native->kind == NodeKind::kNative) << where.str();
    absl::StatusOr<Kernel> jit = MakeFallbackKernel(node);
    ASSERT_TRUE(jit.ok()) << jit.status();
    for (const std::vector<c10::IValue>& inputs : c.inputs) {
      std::vector<c10::IValue> ours = inputs, theirs = inputs;
      ours[0] = Copy(inputs[0]);
      theirs[0] = Copy(inputs[0]);
      testing::Slots our_slots(node->outputs().size()), their_slots(node->outputs().size());
      const std::string our_error = our_slots.Run(native->kernel, ours);
      const std::string their_error = their_slots.Run(*jit, theirs);
      EXPECT_EQ(our_error.empty(), their_error.empty())
          << where.str() << our_error << " / " << their_error;
      EXPECT_EQ(Show(ours[0]), Show(theirs[0])) << where.str();
      if (node->outputs().size() == 1 && our_error.empty() && their_error.empty()) {
        EXPECT_EQ(Show(our_slots.Output(0)), Show(their_slots.Output(0))) << where.str();
        EXPECT_EQ(*our_slots.Output(0).type(), *their_slots.Output(0).type()) << where.str();
      }
    }
  }
}

}  // namespace
}  // namespace static_runtime
