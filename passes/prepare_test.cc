// Entry points and negative tests of the preparation pipeline: every kind of
// static-runnability failure gives a Status whose message names the node, and
// invalid options are refused before any work.
#include "passes/prepare.h"

#include <cstdlib>
#include <string>

#include "ATen/ATen.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "load/load.h"
#include "passes/check_static_runnable.h"
#include "torch/csrc/jit/api/function_impl.h"
#include "torch/csrc/jit/ir/irparser.h"

namespace static_runtime {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kAddIR[] = R"IR(
graph(%x : Tensor, %y : Tensor):
  %one : int = prim::Constant[value=1]()
  %z : Tensor = aten::add(%x, %y, %one)
  return (%z)
)IR";

// The entry points refuse invalid options (options/options_test.cc has them
// all) before doing anything.
TEST(PrepareTest, RefusesInvalidOptions) {
  Options memory_without_out;
  memory_without_out.enable_out_variant = false;
  absl::StatusOr<PreparedGraph> prepared = PrepareIR(kAddIR, memory_without_out);
  ASSERT_FALSE(prepared.ok());
  EXPECT_EQ(prepared.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(PrepareTest, FusionHookRunsOnlyWithSampleInputs) {
  int calls = 0;
  Options options;
  options.enable_tensorexpr_fusion = true;
  options.fusion_hook = [&calls](std::shared_ptr<torch::jit::Graph>&,
                                 const std::vector<c10::IValue>& samples) {
    EXPECT_EQ(samples.size(), 2u);
    ++calls;
  };
  ASSERT_TRUE(PrepareIR(kAddIR, options).ok());
  EXPECT_EQ(calls, 0);
  ASSERT_TRUE(PrepareIR(kAddIR, options, {at::ones({2}), at::ones({2})}).ok());
  EXPECT_EQ(calls, 1);
}

TEST(PrepareTest, GraphEntryPointNeverMutatesTheCallersGraph) {
  absl::StatusOr<std::shared_ptr<torch::jit::Graph>> graph = ParseGraphIR(R"IR(
graph(%x : Tensor):
  %zero : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %dims : int[] = prim::ListConstruct(%one, %zero)
  %t : Tensor = aten::permute(%x, %dims)
  %r : Tensor = aten::relu(%t)
  return (%r, %x)
)IR");
  ASSERT_TRUE(graph.ok());
  const std::string before = (*graph)->toString();
  absl::StatusOr<PreparedGraph> prepared = PrepareGraph(*graph, Options());
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  EXPECT_EQ((*graph)->toString(), before);
  EXPECT_NE(prepared->graph->toString(), before);
  ASSERT_EQ(prepared->schema.arguments().size(), 1u);
  EXPECT_EQ(prepared->schema.arguments()[0].name(), "x");
}

TEST(PrepareTest, ModuleSchemaDropsSelfAndKeepsDefaults) {
  auto module = ModuleFromSource(R"(
def forward(self, x, scale: float = 2.0):
    return x * scale * self.w
)",
                                 {{"w", at::ones({3})}});
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<PreparedGraph> prepared = PrepareModule(*module, /*is_frozen=*/false, Options());
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  const auto& arguments = prepared->schema.arguments();
  ASSERT_EQ(arguments.size(), 2u);
  EXPECT_EQ(arguments[0].name(), "x");
  EXPECT_EQ(arguments[1].name(), "scale");
  ASSERT_TRUE(arguments[1].default_value().has_value());
  EXPECT_EQ(arguments[1].default_value()->toDouble(), 2.0);
  EXPECT_EQ(prepared->graph->inputs().size(), 2u);
}

// With prepack_weights, freezing folds the batch norm into the convolution as
// torch.jit.freeze does; without, the graph keeps it (as PyTorch's Static
// Runtime does) and the prepared graph gives the module's exact bits.
TEST(PrepareTest, BatchNormIsFoldedOnlyWithPrepackedWeights) {
  auto module = ModuleFromSource(R"(
def forward(self, x):
    y = torch.conv2d(x, self.w, self.b)
    return torch.batch_norm(y, self.g, self.beta, self.mean, self.var, False, 0.1, 1e-5, False)
)",
                                 {{"w", at::randn({4, 3, 3, 3})},
                                  {"b", at::randn({4})},
                                  {"g", at::randn({4})},
                                  {"beta", at::randn({4})},
                                  {"mean", at::randn({4})},
                                  {"var", at::rand({4}) + 0.5}});
  ASSERT_TRUE(module.ok()) << module.status();
  for (const bool prepack : {false, true}) {
    Options options;
    options.prepack_weights = prepack;
    absl::StatusOr<PreparedGraph> prepared = PrepareModule(*module, /*is_frozen=*/false, options);
    ASSERT_TRUE(prepared.ok()) << prepared.status();
    const std::string ir = prepared->graph->toString();
    if (prepack) {
      EXPECT_THAT(ir, testing::Not(testing::HasSubstr("aten::batch_norm"))) << ir;
      EXPECT_THAT(ir, testing::HasSubstr("static_runtime::conv2d_fused"));
      continue;
    }
    EXPECT_THAT(ir, testing::HasSubstr("aten::batch_norm")) << ir;
    const at::Tensor x = at::randn({2, 3, 8, 8});
    const at::Tensor expected = module->forward({x}).toTensor();
    torch::jit::Stack stack = {x};
    torch::jit::GraphFunction function("forward", prepared->graph, nullptr);
    function.run(stack);
    EXPECT_TRUE(at::equal(stack.back().toTensor(), expected));
  }
}

// The prepared `graph` on the JIT, on `inputs`: the tensors of its tuple.
std::vector<c10::IValue> RunOnJit(const std::shared_ptr<torch::jit::Graph>& graph,
                                  const std::vector<c10::IValue>& inputs) {
  torch::jit::Stack stack(inputs.begin(), inputs.end());
  torch::jit::GraphFunction function("forward", graph, nullptr);
  function.run(stack);
  return stack.back().toTupleRef().elements().vec();
}

void ExpectSameTensors(const std::vector<c10::IValue>& actual,
                       c10::ArrayRef<c10::IValue> expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_TRUE(at::equal(actual[i].toTensor(), expected[i].toTensor()));
  }
}

// A frozen network's LSTM becomes static_runtime::lstm_fast_gates with
// prepack_weights (which the JIT runs as ATen's op: same results), and stays
// aten::lstm without.
TEST(PrepareTest, FrozenRecurrentNetworksGetFastGatesOnlyWithPrepackedWeights) {
  auto module = ModuleFromSource(R"(
def forward(self, x, h, c):
    return torch.lstm(x, [h, c], [self.w_ih, self.w_hh, self.b_ih, self.b_hh], True, 1, 0.0,
                      False, False, False)
)",
                                 {{"w_ih", at::randn({16, 3})},
                                  {"w_hh", at::randn({16, 4})},
                                  {"b_ih", at::randn({16})},
                                  {"b_hh", at::randn({16})}});
  ASSERT_TRUE(module.ok()) << module.status();
  for (const bool prepack : {false, true}) {
    Options options;
    options.prepack_weights = prepack;
    absl::StatusOr<PreparedGraph> prepared = PrepareModule(*module, /*is_frozen=*/false, options);
    ASSERT_TRUE(prepared.ok()) << prepared.status();
    const std::string ir = prepared->graph->toString();
    EXPECT_THAT(ir, HasSubstr(prepack ? "static_runtime::lstm_fast_gates" : "aten::lstm")) << ir;
    EXPECT_THAT(ir, Not(HasSubstr(prepack ? "aten::lstm" : "fast_gates"))) << ir;
    const std::vector<c10::IValue> inputs = {at::randn({5, 2, 3}), at::randn({1, 2, 4}),
                                             at::randn({1, 2, 4})};
    const auto expected = module->forward(inputs).toTupleRef().elements();
    ExpectSameTensors(RunOnJit(prepared->graph, inputs), expected);
  }
}

// Frozen cells become static_runtime::lstm_cell_fast_gates and
// gru_cell_fast_gates with prepack_weights (the JIT runs them as ATen's
// ops: same results); a cell whose weight is an input stays ATen's.
TEST(PrepareTest, FrozenCellsGetFastGatesOnlyWithPrepackedWeights) {
  auto module = ModuleFromSource(R"(
def forward(self, x, h, c, w_hh):
    hy, cy = torch.lstm_cell(x, [h, c], self.w_ih4, self.w_hh4, self.b4, self.b4)
    g = torch.gru_cell(x, h, self.w_ih3, self.w_hh3, self.b3, self.b3)
    free = torch.gru_cell(x, h, self.w_ih3, w_hh, None, None)
    return hy, cy, g, free
)",
                                 {{"w_ih4", at::randn({16, 3})},
                                  {"w_hh4", at::randn({16, 4})},
                                  {"b4", at::randn({16})},
                                  {"w_ih3", at::randn({12, 3})},
                                  {"w_hh3", at::randn({12, 4})},
                                  {"b3", at::randn({12})}});
  ASSERT_TRUE(module.ok()) << module.status();
  const std::vector<c10::IValue> inputs = {at::randn({2, 3}), at::randn({2, 4}), at::randn({2, 4}),
                                           at::randn({12, 4})};
  const auto expected = module->forward(inputs).toTupleRef().elements();
  for (const bool prepack : {false, true}) {
    Options options;
    options.prepack_weights = prepack;
    absl::StatusOr<PreparedGraph> prepared = PrepareModule(*module, /*is_frozen=*/false, options);
    ASSERT_TRUE(prepared.ok()) << prepared.status();
    const std::string ir = prepared->graph->toString();
    EXPECT_EQ(ir.find("static_runtime::lstm_cell_fast_gates") != std::string::npos, prepack) << ir;
    EXPECT_EQ(ir.find("static_runtime::gru_cell_fast_gates") != std::string::npos, prepack) << ir;
    EXPECT_EQ(ir.find("aten::lstm_cell") != std::string::npos, !prepack) << ir;
    EXPECT_THAT(ir, HasSubstr("aten::gru_cell")) << ir;  // the one of an input weight
    ExpectSameTensors(RunOnJit(prepared->graph, inputs), expected);
  }
}

// A module claimed frozen that is not keeps its attribute reads, and
// attributes forward assigns stay attributes when frozen: both keep `self`,
// bound to a copy of the module (PreparedGraph::self), as PyTorch's Static
// Runtime does.
TEST(PrepareTest, AttributesLeftByFreezingKeepTheModuleObject) {
  auto module =
      ModuleFromSource("def forward(self, x):\n    return x * self.w\n", {{"w", at::ones({3})}});
  ASSERT_TRUE(module.ok());
  absl::StatusOr<PreparedGraph> claimed = PrepareModule(*module, /*is_frozen=*/true, Options());
  ASSERT_TRUE(claimed.ok()) << claimed.status();
  EXPECT_TRUE(claimed->self.isObject());
  EXPECT_EQ(claimed->graph->inputs().size(), 2u);
  EXPECT_EQ(claimed->schema.arguments().size(), 1u);
  EXPECT_NE(claimed->self.toObject().get(), module->_ivalue().get());  // a copy

  absl::StatusOr<PreparedGraph> frozen = PrepareModule(*module, /*is_frozen=*/false, Options());
  ASSERT_TRUE(frozen.ok()) << frozen.status();
  EXPECT_TRUE(frozen->self.isNone());
  EXPECT_EQ(frozen->graph->inputs().size(), 1u);
}

TEST(CheckTest, InputWritesAreAllowedAndListed) {
  auto module = ModuleFromSource("def forward(self, x):\n    x.add_(1.0)\n    return x.relu()\n");
  ASSERT_TRUE(module.ok());
  absl::StatusOr<PreparedGraph> prepared = PrepareModule(*module, /*is_frozen=*/false, Options());
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  const std::vector<std::string> writes = GraphInputWrites(prepared->graph);
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_THAT(writes[0], AllOf(HasSubstr("aten::add_"), HasSubstr("mutates graph input %x"),
                               HasSubstr("x.add_(1.0)")));
}

TEST(CheckTest, CallsAndForksWithoutSubgraphAreAllReported) {
  auto graph = std::make_shared<torch::jit::Graph>();
  torch::jit::Value* x = graph->addInput("x");
  x->setType(c10::TensorType::get());
  torch::jit::Node* call = graph->appendNode(graph->create(c10::prim::CallFunction, {x}, 1));
  torch::jit::Node* method =
      graph->appendNode(graph->create(c10::prim::CallMethod, {call->output()}, 1));
  method->s_(c10::attr::name, "helper");
  torch::jit::Node* fork = graph->appendNode(graph->create(c10::prim::fork, {method->output()}, 1));
  graph->appendNode(graph->create(c10::prim::PythonOp, {fork->output()}, 1));
  graph->registerOutput(x);

  absl::Status status = CheckStaticRunnable(graph);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()),
              AllOf(HasSubstr("(3 problems)"), HasSubstr("node #0 prim::CallFunction"),
                    HasSubstr("call left after inlining"), HasSubstr("node #1 prim::CallMethod"),
                    HasSubstr("node #2 prim::fork"), HasSubstr("asynchronous execution"),
                    Not(HasSubstr("prim::PythonOp"))));
}

// A constant dtype, layout or memory format is checked at its boundary:
// NumOptions-1 names the last value, NumOptions and NumOptions+1 name none
// (LibTorch 1.13 crashes formatting the error for an unknown dtype), and
// neither does -1.
TEST(CheckTest, EnumConstantsAtTheBoundary) {
  struct Enum {
    const char* argument;  // of aten::empty.memory_format
    int64_t count;
  };
  for (const Enum& kind :
       {Enum{"dtype", static_cast<int64_t>(c10::ScalarType::NumOptions)},
        Enum{"layout", static_cast<int64_t>(c10::Layout::NumOptions)},
        Enum{"memory_format", static_cast<int64_t>(c10::MemoryFormat::NumOptions)}}) {
    for (const int64_t value : {kind.count - 1, kind.count, kind.count + 1, int64_t{-1}}) {
      SCOPED_TRACE(absl::StrCat(kind.argument, "=", value));
      const auto argument = [&](const char* name) {
        return kind.argument == std::string(name) ? "%value" : "%none";
      };
      const std::string ir = absl::StrCat(
          "graph(%n : int):\n  %sizes : int[] = prim::ListConstruct(%n)\n",
          "  %value : int = prim::Constant[value=", value, "]()\n",
          "  %none : NoneType = prim::Constant()\n", "  %y : Tensor = aten::empty(%sizes, ",
          argument("dtype"), ", ", argument("layout"), ", %none, %none, ",
          argument("memory_format"), ")\n  return (%y)\n");
      auto graph = std::make_shared<torch::jit::Graph>();
      torch::jit::parseIR(ir, graph.get());
      const absl::Status status = CheckStaticRunnable(graph);
      if (value == kind.count - 1) {
        EXPECT_TRUE(status.ok()) << status;
      } else {
        EXPECT_THAT(std::string(status.message()),
                    AllOf(HasSubstr(absl::StrCat("argument '", kind.argument, "' is ", value)),
                          HasSubstr("which names no")));
      }
    }
  }
}

TEST(CheckTest, ControlFlowIsAllowed) {
  auto module = ModuleFromSource(R"(
def forward(self, x, n: int):
    for i in range(n):
        if i % 2 == 0:
            x = x + 1.0
    return x
)");
  ASSERT_TRUE(module.ok());
  EXPECT_TRUE(PrepareModule(*module, false, Options()).ok());
}

TEST(PrepareTest, SavedArchiveIsFrozenAndPrepared) {
  auto module = ModuleFromSource("def forward(self, x):\n    return (x * self.w).relu()\n",
                                 {{"w", at::ones({3})}});
  ASSERT_TRUE(module.ok());
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(dir != nullptr ? dir : "/tmp") + "/m.pt";
  module->save(path);
  absl::StatusOr<PreparedGraph> prepared = PrepareFile(path, Options());
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  EXPECT_EQ(prepared->graph->inputs().size(), 1u);
  EXPECT_EQ(prepared->graph->toString().find("prim::GetAttr"), std::string::npos);
}

TEST(PrepareTest, BadInputsGiveClearErrors) {
  absl::StatusOr<PreparedGraph> missing = PrepareFile("/no/such/model.pt", Options());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);

  absl::StatusOr<PreparedGraph> malformed =
      PrepareIR("graph(%x : Tensor):\n  return (%y)\n", Options());
  ASSERT_FALSE(malformed.ok());
  EXPECT_THAT(std::string(malformed.status().message()), HasSubstr("malformed graph IR"));
}

TEST(PrepareTest, RewritesFollowTheirOptions) {
  constexpr char kIR[] = R"IR(
graph(%x : Tensor):
  %zero : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %dims : int[] = prim::ListConstruct(%one, %zero)
  %t : Tensor = aten::permute(%x, %dims)
  %list : Tensor[] = prim::ListConstruct(%t, %t)
  %c : Tensor = aten::cat(%list, %zero)
  return (%c)
)IR";
  absl::StatusOr<PreparedGraph> all_on = PrepareIR(kIR, Options());
  ASSERT_TRUE(all_on.ok());
  const std::string on = all_on->graph->toString();
  EXPECT_THAT(on, AllOf(HasSubstr("static_runtime::variadic_cat"),
                        HasSubstr("static_runtime::copy_permute")));

  Options off;
  off.use_variadic_ops = false;
  off.use_copy_variants = false;
  absl::StatusOr<PreparedGraph> all_off = PrepareIR(kIR, off);
  ASSERT_TRUE(all_off.ok());
  const std::string text = all_off->graph->toString();
  EXPECT_THAT(text, AllOf(HasSubstr("aten::cat"), HasSubstr("aten::permute")));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("static_runtime::")));
}

// A reduction adds in memory order: over a copy (contiguous) it would add in
// another order than over the view (strided), so a permute whose result
// reaches one, directly or through ops that keep strides, stays a view.
// Through an op that lays its result out afresh (matmul), it does not matter.
TEST(PrepareTest, ViewsReducedInMemoryOrderAreNotCopied) {
  const auto prepared_text = [](const std::string& consumers) {
    const std::string ir = absl::StrCat(R"IR(
graph(%x : Tensor, %w : Tensor):
  %none : NoneType = prim::Constant()
  %zero : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %two : int = prim::Constant[value=2]()
  %half : float = prim::Constant[value=0.5]()
  %y : Tensor = aten::div(%x, %half)
  %dims : int[] = prim::ListConstruct(%one, %two, %zero)
  %p : Tensor = aten::permute(%y, %dims)
)IR",
                                        consumers);
    absl::StatusOr<PreparedGraph> prepared = PrepareIR(ir, Options());
    EXPECT_TRUE(prepared.ok()) << prepared.status();
    return prepared.ok() ? prepared->graph->toString() : std::string();
  };
  EXPECT_THAT(prepared_text(R"IR(
  %s : Tensor = aten::sum(%p, %none)
  return (%s)
)IR"),
              AllOf(HasSubstr("aten::permute"), Not(HasSubstr("copy_permute"))));
  EXPECT_THAT(prepared_text(R"IR(
  %r : Tensor = aten::relu(%p)
  %list : Tensor[] = prim::ListConstruct(%r, %r)
  %c : Tensor = aten::cat(%list, %zero)
  %m : Tensor = aten::mean(%c, %none)
  return (%m)
)IR"),
              AllOf(HasSubstr("aten::permute"), Not(HasSubstr("copy_permute"))));
  EXPECT_THAT(prepared_text(R"IR(
  %r : Tensor = aten::relu(%p)
  %m : Tensor = aten::matmul(%r, %w)
  %s : Tensor = aten::sum(%m, %none)
  return (%s)
)IR"),
              HasSubstr("static_runtime::copy_permute"));
}

}  // namespace
}  // namespace static_runtime
