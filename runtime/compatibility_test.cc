// What PyTorch's Static Runtime 1.13 runs, the runtime runs with the JIT's
// results, under every standard option set, on two input sizes and repeated
// runs: modules whose forward assigns attributes (state kept between runs),
// TorchScript class objects, writes into the caller's dicts, lists and
// tensors, adjacent tuple unpacks (as one node, PyTorch's VarTupleUnpack),
// the profiling executor's prim::TypeCheck in IR; operator()
// rethrows a node's exception as thrown; a failed first run plans nothing;
// clone keeps a strided input's layout and the plan grows with the input;
// `with` statements; aten::warn.
#include <stdexcept>
#include <string>
#include <vector>

#include "ATen/ATen.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "load/load.h"
#include "runtime/package.h"
#include "runtime/static_runtime.h"
#include "torch/csrc/jit/frontend/source_range.h"
#include "torch/csrc/jit/ir/irparser.h"
#include "torch/csrc/jit/passes/freeze_module.h"
#include "torch/csrc/jit/runtime/graph_iterator.h"
#include "torch/csrc/jit/runtime/interpreter.h"
#include "torch/csrc/jit/runtime/jit_exception.h"
#include "torch/script.h"
#include "verify/option_sets.h"
#include "verify/recorded_warnings.h"
#include "verify/run_check.h"

namespace static_runtime {
namespace {

using golden::RecordedWarnings;
using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr char kAttributes[] = "runtime/testdata/stateful_attributes.pt";
constexpr char kObject[] = "runtime/testdata/stateful_object.pt";
constexpr char kWith[] = "runtime/testdata/stateful_with.pt";

// Two input sizes, each run twice, on the JIT and on the runtime side by
// side (golden::CheckRunAgainstJit: outputs and what is left of the inputs
// equal), for a model prepared from `module` (frozen by the runtime, or
// frozen first with `is_frozen`) under every option set. `jit` runs the
// same calls: its state (attributes) advances with the runtime's.
void ExpectMatchesTheJit(const torch::jit::Module& module, bool is_frozen,
                         const std::vector<std::vector<c10::IValue>>& input_sets) {
  for (const golden::OptionSet& option_set : golden::OptionSets()) {
    SCOPED_TRACE(option_set.name);
    torch::jit::Module jit = module.clone();
    jit.eval();
    absl::StatusOr<StaticModule::Ptr> prepared =
        StaticModule::FromModule(module, is_frozen, option_set.options);
    ASSERT_TRUE(prepared.ok()) << prepared.status();
    StaticRuntime runtime(*prepared);
    for (int round = 0; round < 2; ++round) {
      for (const std::vector<c10::IValue>& inputs : input_sets) {
        const absl::Status same =
            golden::CheckRunAgainstJit(jit, runtime, inputs, golden::WhenTheJitRaises::kFail);
        EXPECT_TRUE(same.ok()) << "round " << round << ": " << same;
      }
    }
  }
}

TEST(CompatibilityTest, AttributesForwardAssignsKeepTheirValuesBetweenRuns) {
  const torch::jit::Module module = torch::jit::load(kAttributes);
  ExpectMatchesTheJit(module, /*is_frozen=*/false, {{at::randn({2, 2})}, {at::randn({5, 3})}});
  // Frozen by the caller: freezing keeps the assigned attributes.
  ExpectMatchesTheJit(torch::jit::freeze_module(module), /*is_frozen=*/true,
                      {{at::randn({2, 2})}, {at::randn({5, 3})}});
}

// A tensor a run makes and stores into an attribute, as it is (not a view
// of it), is read by the next run: it must never be planned memory.
TEST(CompatibilityTest, AFreshTensorStoredInAnAttributeOutlivesTheRun) {
  torch::jit::Module module("__torch__.Accumulator");
  module.register_attribute("total", c10::TensorType::get(), at::zeros({3}));
  module.define(R"(
def forward(self, x):
    previous = self.total
    self.total = torch.relu(x) * 2.0 + previous
    return previous + 1.0
)");
  ExpectMatchesTheJit(module, /*is_frozen=*/false, {{at::randn({3})}, {at::randn({3})}});
}

TEST(CompatibilityTest, RuntimeStateIsTheModulesCopyNotTheCallers) {
  const torch::jit::Module module = torch::jit::load(kAttributes);
  absl::StatusOr<StaticModule::Ptr> prepared = StaticModule::FromModule(module, false);
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  StaticRuntime runtime(*prepared);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(runtime.Run({at::ones({2})}).ok());
  EXPECT_EQ(module.attr("calls").toInt(), 0);
  // Two runtimes of one module share its state, as PyTorch's do.
  StaticRuntime second(*prepared);
  absl::StatusOr<c10::IValue> fourth = second.Run({at::zeros({1})});
  ASSERT_TRUE(fourth.ok()) << fourth.status();
  torch::jit::Module jit = module.clone();
  for (int i = 0; i < 3; ++i) jit.forward({at::ones({2})});
  EXPECT_TRUE(fourth->toTensor().equal(jit.forward({at::zeros({1})}).toTensor()));
}

TEST(CompatibilityTest, PackagesRefuseModuleState) {
  absl::StatusOr<StaticModule::Ptr> prepared =
      StaticModule::FromModule(torch::jit::load(kAttributes), false);
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  const char* dir = std::getenv("TEST_TMPDIR");
  const absl::Status saved =
      SavePackage(**prepared, absl::StrCat(dir != nullptr ? dir : "/tmp", "/state.srpkg"));
  EXPECT_EQ(saved.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(saved.message()), HasSubstr("module state"));
}

TEST(CompatibilityTest, TorchScriptObjectsAreCreatedAndUsed) {
  const torch::jit::Module module = torch::jit::load(kObject);
  ExpectMatchesTheJit(module, /*is_frozen=*/false, {{at::randn({3})}, {at::randn({4, 6})}});
  ExpectMatchesTheJit(torch::jit::freeze_module(module), /*is_frozen=*/true,
                      {{at::randn({3})}, {at::randn({4, 6})}});
}

// `with` statements (prim::Enter, prim::Exit) run the object's __enter__ and
// __exit__ as the interpreter does, in a loop and nested; when __enter__ or
// the block raises, the objects entered are exited (the model's log, an
// input, shows it) and the runtime is left as before: grad mode restored
// by torch.no_grad()'s __exit__, and ready to run again.
TEST(CompatibilityTest, WithStatementsEnterAndExitAsTheJitDoes) {
  const torch::jit::Module module = torch::jit::load(kWith);
  const auto inputs = [](int64_t n, bool fail_enter, bool fail_block) {
    return std::vector<c10::IValue>{at::randn({n}), at::zeros({n}), fail_enter, fail_block};
  };
  ExpectMatchesTheJit(module, /*is_frozen=*/false,
                      {inputs(3, false, false), inputs(7, false, false)});
  ExpectMatchesTheJit(torch::jit::freeze_module(module), /*is_frozen=*/true,
                      {inputs(3, false, false), inputs(7, false, false)});
  for (const golden::OptionSet& option_set : golden::OptionSets()) {
    SCOPED_TRACE(option_set.name);
    torch::jit::Module jit = module.clone();
    absl::StatusOr<StaticModule::Ptr> prepared =
        StaticModule::FromModule(module, false, option_set.options);
    ASSERT_TRUE(prepared.ok()) << prepared.status();
    StaticRuntime runtime(*prepared);
    for (const auto& [fail_enter, fail_block] : {std::pair(true, false), std::pair(false, true)}) {
      SCOPED_TRACE(fail_enter ? "__enter__ raises" : "the block raises");
      const bool grad_mode = at::GradMode::is_enabled();
      const absl::Status same =
          golden::CheckRunAgainstJit(jit, runtime, inputs(4, fail_enter, fail_block),
                                     golden::WhenTheJitRaises::kExpectAnError);
      EXPECT_TRUE(same.ok()) << same;
      EXPECT_EQ(at::GradMode::is_enabled(), grad_mode);
      const absl::Status next = golden::CheckRunAgainstJit(jit, runtime, inputs(5, false, false),
                                                           golden::WhenTheJitRaises::kFail);
      EXPECT_TRUE(next.ok()) << next;
    }
  }
}

absl::StatusOr<torch::jit::Module> FromSource(const char* source) {
  return ModuleFromSource(source);
}

TEST(CompatibilityTest, WritesToInputContainersAndTensorsAreTheJits) {
  const char* sources[] = {
      R"(
def forward(self, d: Dict[int, Tensor]):
    a = d[0]
    d[1] = a
    return (a + d[1]).clone()
)",
      R"(
def forward(self, l: List[Tensor], x):
    l.append(x * 2.0)
    l[0] = l[0] + 1.0
    return len(l)
)",
      R"(
def forward(self, x, y):
    x.add_(1.0)
    y.mul_(2.0)
    z = x + y
    x.relu_()
    return z
)",
  };
  const std::vector<std::vector<std::vector<c10::IValue>>> inputs = {
      {{c10::Dict<int64_t, at::Tensor>()}, {c10::Dict<int64_t, at::Tensor>()}},
      {{c10::List<at::Tensor>({at::randn({2})}), at::randn({2})},
       {c10::List<at::Tensor>({at::randn({3, 3}), at::randn({1})}), at::randn({3, 3})}},
      {{at::randn({3}), at::randn({3})}, {at::randn({4, 5}), at::randn({4, 5})}},
  };
  for (size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(sources[i]);
    absl::StatusOr<torch::jit::Module> module = FromSource(sources[i]);
    ASSERT_TRUE(module.ok()) << module.status();
    std::vector<std::vector<c10::IValue>> sets = inputs[i];
    if (i == 0) {  // the dicts need their key 0
      sets[0][0].toGenericDict().insert(int64_t{0}, at::randn({2}));
      sets[1][0].toGenericDict().insert(int64_t{0}, at::randn({3, 4}));
    }
    ExpectMatchesTheJit(*module, false, sets);
  }
  // The caller's own dict and tensor change, as with the JIT.
  absl::StatusOr<StaticModule::Ptr> dict_model =
      StaticModule::FromModule(*FromSource(sources[0]), false);
  ASSERT_TRUE(dict_model.ok()) << dict_model.status();
  c10::Dict<int64_t, at::Tensor> dict;
  dict.insert(0, at::ones({2}));
  ASSERT_TRUE(StaticRuntime(*dict_model).Run({dict}).ok());
  ASSERT_TRUE(dict.contains(1));
  EXPECT_TRUE(dict.at(1).equal(at::ones({2})));
  absl::StatusOr<StaticModule::Ptr> tensor_model =
      StaticModule::FromModule(*FromSource(sources[2]), false);
  ASSERT_TRUE(tensor_model.ok()) << tensor_model.status();
  at::Tensor x = at::full({2}, -3.0), y = at::ones({2});
  ASSERT_TRUE(StaticRuntime(*tensor_model).Run({x, y}).ok());
  EXPECT_TRUE(x.equal(at::zeros({2})));  // -3 + 1, then relu_
  EXPECT_TRUE(y.equal(at::full({2}, 2.0)));
}

// PyTorch's VarTupleUnpack case: adjacent unpacks become one node.
TEST(CompatibilityTest, AdjacentTupleUnpacksRunAsOneNode) {
  absl::StatusOr<torch::jit::Module> module = ModuleFromSource(R"(
def forward(self, input_0: Tuple[Tensor, Tensor], input_1: Tuple[int, int]):
    a, b = input_0
    c, d = input_1
    res = a * c + b * d
    return res.clone()
)");
  ASSERT_TRUE(module.ok()) << module.status();
  auto tuple = [](c10::IValue a, c10::IValue b) { return c10::ivalue::Tuple::create(a, b); };
  ExpectMatchesTheJit(*module, false,
                      {{tuple(at::randn({2, 3}), at::randn({2, 3})), tuple(int64_t{2}, int64_t{3})},
                       {tuple(at::randn({5}), at::randn({5})), tuple(int64_t{-1}, int64_t{4})}});
  absl::StatusOr<StaticModule::Ptr> prepared = StaticModule::FromModule(*module, false);
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  EXPECT_THAT((*prepared)->graph()->toString(),
              AllOf(HasSubstr("static_runtime::var_tuple_unpack"),
                    ::testing::Not(HasSubstr("prim::TupleUnpack"))));
}

constexpr char kTypeCheckIR[] = R"IR(
graph(%a.1 : Tensor,
      %b.1 : Tensor):
  %t0 : Float(2, 2, strides=[2, 1], device=cpu), %t1 : Float(3, 3, strides=[3, 1]), %type_matched : bool = prim::TypeCheck[types=[Float(2, 2, strides=[2, 1], device=cpu), Float(3, 3, strides=[3, 1])]](%a.1, %b.1)
  %one : int = prim::Constant[value=1]()
  %s : Tensor = aten::add(%t0, %a.1, %one)
  return (%s, %t1, %type_matched)
)IR";

// The JIT interpreter's outputs for the graph of `ir` on `inputs`.
std::vector<c10::IValue> RunOnTheInterpreter(const char* ir, std::vector<c10::IValue> inputs) {
  auto graph = std::make_shared<torch::jit::Graph>();
  torch::jit::parseIR(ir, graph.get());
  torch::jit::Code code(graph, "reference");
  torch::jit::InterpreterState(code).run(inputs);
  return inputs;
}

// prim::isinstance on a value whose type is known only when it runs (Any):
// a native kernel deciding as the interpreter's own instruction does.
TEST(CompatibilityTest, IsinstanceOfAnAnyRunsAsTheJitDoes) {
  absl::StatusOr<torch::jit::Module> module = ModuleFromSource(R"(
def forward(self, x: Tensor, a: Any):
    if isinstance(a, Tensor):
        return x + a
    elif isinstance(a, List[int]):
        return x * len(a)
    elif isinstance(a, Tuple[int, str]):
        return x - a[0]
    return x
)");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<StaticModule::Ptr> prepared = StaticModule::FromModule(*module, false);
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  int isinstance_nodes = 0;
  for (const NodeDescription& node : (*prepared)->DescribeNodes()) {
    if (node.node->kind() == c10::prim::isinstance) {
      ++isinstance_nodes;
      EXPECT_EQ(node.kind, NodeKind::kNative);
    }
  }
  EXPECT_EQ(isinstance_nodes, 3);
  ExpectMatchesTheJit(*module, /*is_frozen=*/false,
                      {{at::randn({3}), at::randn({3})},
                       {at::randn({2}), c10::List<int64_t>({1, 2, 3})},
                       {at::randn({4}), c10::ivalue::Tuple::create({int64_t{5}, std::string("s")})},
                       {at::randn({1}), std::string("neither")}});
}

// Values that cross a fork keep the interpreter's typing: None and present
// optionals, an Any, and a value an If leaves uninitialized, into a forked
// method that refines them as the JIT does.
TEST(CompatibilityTest, ForkedCallsTakeOptionalsAnyAndUninitializedValues) {
  absl::StatusOr<torch::jit::Module> module = ModuleFromSource(R"(
def forward(self, x, y: Optional[Tensor], n: Optional[int], a: Any):
    if x.dim() > 0:
        z = x * 2.0
    else:
        assert False, "a scalar"
    future = fork(self.tower, x, y, n, a, z)
    return torch.wait(future) + 1.0

def tower(self, x: Tensor, y: Optional[Tensor], n: Optional[int], a: Any, z: Tensor) -> Tensor:
    out = x + z
    if y is not None:
        out = out * y
    if n is not None:
        out = out + n
    if isinstance(a, Tensor):
        out = out - a
    return out
)");
  ASSERT_TRUE(module.ok()) << module.status();
  ExpectMatchesTheJit(*module, /*is_frozen=*/false,
                      {{at::randn({3}), c10::IValue(), c10::IValue(), std::string("any")},
                       {at::randn({4}), at::randn({4}), int64_t{2}, at::randn({4})},
                       {at::randn({2, 2}), c10::IValue(), int64_t{-1}, at::randn({2})}});
}

// prim::TupleSlice (which 1.13's frontend lowers to TupleIndex and
// TupleConstruct, but IR and older archives may hold) runs on the interpreter.
TEST(CompatibilityTest, TupleSliceRunsAsTheJitDoes) {
  constexpr char kIR[] = R"IR(
graph(%t : (Tensor, int, Tensor)):
  %s : (int, Tensor) = prim::TupleSlice[beg=1, end=3](%t)
  return (%s)
)IR";
  for (const golden::OptionSet& option_set : golden::OptionSets()) {
    SCOPED_TRACE(option_set.name);
    absl::StatusOr<StaticModule::Ptr> prepared = StaticModule::FromIR(kIR, option_set.options);
    ASSERT_TRUE(prepared.ok()) << prepared.status();
    StaticRuntime runtime(*prepared);
    const at::Tensor a = at::randn({2}), b = at::randn({3});
    const c10::IValue out = runtime({c10::ivalue::Tuple::create({a, int64_t{7}, b})});
    ASSERT_TRUE(out.isTuple());
    ASSERT_EQ(out.toTupleRef().elements().size(), 2u);
    EXPECT_EQ(out.toTupleRef().elements()[0].toInt(), 7);
    EXPECT_TRUE(out.toTupleRef().elements()[1].toTensor().equal(b));
  }
}

TEST(CompatibilityTest, TypeCheckGivesItsInputsAndWhetherTheyMatch) {
  const std::vector<std::vector<c10::IValue>> input_sets = {
      {at::zeros({2, 2}), at::ones({3, 3})},               // matches
      {at::zeros({2, 2}), at::ones({2, 2, 2})},            // a shape that does not
      {at::zeros({2, 2}).t(), at::ones({3, 3})},           // strides that do not
      {at::zeros({2, 2}, at::kDouble), at::ones({3, 3})},  // a dtype that does not
  };
  for (const golden::OptionSet& option_set : golden::OptionSets()) {
    SCOPED_TRACE(option_set.name);
    absl::StatusOr<StaticModule::Ptr> prepared =
        StaticModule::FromIR(kTypeCheckIR, option_set.options);
    ASSERT_TRUE(prepared.ok()) << prepared.status();
    StaticRuntime runtime(*prepared);
    for (int round = 0; round < 2; ++round) {
      for (const std::vector<c10::IValue>& inputs : input_sets) {
        const std::vector<c10::IValue> expected = RunOnTheInterpreter(kTypeCheckIR, inputs);
        absl::StatusOr<c10::IValue> actual = runtime.Run(inputs);
        ASSERT_TRUE(actual.ok()) << actual.status();
        const auto& elements = actual->toTupleRef().elements();
        ASSERT_EQ(elements.size(), expected.size());
        EXPECT_TRUE(elements[0].toTensor().equal(expected[0].toTensor()));
        EXPECT_TRUE(elements[1].toTensor().equal(expected[1].toTensor()));
        EXPECT_EQ(elements[2].toBool(), expected[2].toBool());
        runtime.ReleaseOutputs();
      }
    }
  }
}

// The model's own raise reaches a C++ caller as the JIT's operator throws
// it: what() is the message alone, the class travels beside it.
TEST(CompatibilityTest, RaiseGivesTheMessageAndTheClassApart) {
  // What `raise Exception("exception message")` compiles to in Python.
  constexpr char kIR[] = R"IR(
graph(%x : Tensor):
  %cls : str = prim::Constant[value="builtins.Exception"]()
  %msg : str = prim::Constant[value="exception message"]()
  %none : NoneType = prim::Constant()
  %zero : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %sum : Tensor = aten::sum(%x, %none)
  %positive : Tensor = aten::gt(%sum, %zero)
  %is_positive : bool = aten::Bool(%positive)
  prim::If(%is_positive)
    block0():
      prim::RaiseException(%msg, %cls)
      -> ()
    block1():
      -> ()
  %y : Tensor = aten::add(%x, %one, %one)
  return (%y)
)IR";
  for (const golden::OptionSet& option_set : golden::OptionSets()) {
    SCOPED_TRACE(option_set.name);
    absl::StatusOr<StaticModule::Ptr> prepared = StaticModule::FromIR(kIR, option_set.options);
    ASSERT_TRUE(prepared.ok()) << prepared.status();
    StaticRuntime runtime(*prepared);
    try {
      runtime({at::ones({2})});
      ADD_FAILURE() << "no exception";
    } catch (const torch::jit::JITException& e) {
      EXPECT_STREQ(e.what(), "exception message");
      EXPECT_EQ(e.getPythonClassName(), c10::make_optional<std::string>("builtins.Exception"));
      EXPECT_EQ(runtime.last_error().code(), absl::StatusCode::kAborted);
    }
    EXPECT_TRUE(runtime({-at::ones({2})}).toTensor().equal(at::zeros({2})));  // still usable
  }
}

// A graph that warns "careful" at a call site numbered `warn_id` (as the
// JIT's AnnotateWarns numbers them; -1: unnumbered), from line 3 of a source
// file, as a loaded model's warn is (the interpreter needs the file); in a
// loop of 4 iterations if `in_loop`. It returns x doubled (x * 16 in the loop).
std::shared_ptr<torch::jit::Graph> WarningGraph(int warn_id, bool in_loop) {
  const std::string warn =
      absl::StrCat("aten::warn", warn_id >= 0 ? absl::StrCat("[warn_id=", warn_id, "]") : "",
                   "(%message, %level)");
  const std::string ir = in_loop ? absl::StrCat(R"IR(
graph(%x : Tensor):
  %message : str = prim::Constant[value="careful"]()
  %level : int = prim::Constant[value=2]()
  %n : int = prim::Constant[value=4]()
  %true : bool = prim::Constant[value=1]()
  %y : Tensor = prim::Loop(%n, %true, %x)
    block0(%i : int, %acc : Tensor):
      )IR",
                                                warn, R"IR(
      %next : Tensor = aten::add(%acc, %acc, %level)
      -> (%true, %next)
  return (%y)
)IR")
                                 : absl::StrCat(R"IR(
graph(%x : Tensor):
  %message : str = prim::Constant[value="careful"]()
  %level : int = prim::Constant[value=1]()
  )IR",
                                                warn, R"IR(
  %y : Tensor = aten::add(%x, %x, %level)
  return (%y)
)IR");
  auto graph = std::make_shared<torch::jit::Graph>();
  torch::jit::parseIR(ir, graph.get());
  const auto source = std::make_shared<torch::jit::Source>(
      "def forward(self, x):\n    # a comment\n    warnings.warn(\"careful\")\n", "model.py", 1);
  for (torch::jit::DepthFirstGraphNodeIterator it(graph); torch::jit::Node* node = it.next();) {
    if (node->kind() == c10::aten::warn) node->setSourceRange({source, 48, 71});
  }
  return graph;
}

// aten::warn, which the interpreter runs itself (its registered operator
// only throws), warns as the JIT does, from a native kernel: through
// LibTorch's warning handler, verbatim, with the model's source file and line; a numbered call site
// once per run even in a loop (the interpreter keeps the numbered sites that warned for one run
// only), an unnumbered one each time it runs.
TEST(CompatibilityTest, WarnWarnsAsTheJitDoes) {
  int next_id = 4000;
  for (const golden::OptionSet& option_set : golden::OptionSets()) {
    SCOPED_TRACE(option_set.name);
    for (const bool in_loop : {false, true}) {
      for (const bool numbered : {true, false}) {
        SCOPED_TRACE(absl::StrCat(in_loop ? "in a loop, " : "", numbered ? "numbered" : ""));
        const at::Tensor x = at::full({2}, 3.0);
        std::vector<std::string> expected, expected_origins;
        at::Tensor expected_output;
        {
          torch::jit::Code code(WarningGraph(numbered ? next_id++ : -1, in_loop), "warns");
          RecordedWarnings warnings;
          for (int run = 0; run < 3; ++run) {
            torch::jit::Stack stack = {x};
            torch::jit::InterpreterState(code).run(stack);
            expected_output = stack.at(0).toTensor();
          }
          expected = warnings.messages;
          expected_origins = warnings.origins;
        }
        const size_t warned = in_loop && !numbered ? 12 : 3;
        EXPECT_EQ(expected, std::vector<std::string>(warned, "careful"));
        EXPECT_EQ(expected_origins, std::vector<std::string>(warned, "model.py:3 verbatim"));
        absl::StatusOr<StaticModule::Ptr> prepared = StaticModule::FromGraph(
            WarningGraph(numbered ? next_id++ : -1, in_loop), option_set.options);
        ASSERT_TRUE(prepared.ok()) << prepared.status();
        // A native kernel where the node has its source file.
        for (const NodeDescription& node : (*prepared)->DescribeNodes()) {
          if (node.node->kind() == c10::aten::warn) EXPECT_EQ(node.kind, NodeKind::kNative);
        }
        StaticRuntime runtime(*prepared);
        RecordedWarnings warnings;
        for (int run = 0; run < 3; ++run) {
          EXPECT_TRUE(runtime({x}).toTensor().equal(expected_output));
          runtime.ReleaseOutputs();
        }
        EXPECT_EQ(warnings.messages, expected);
        EXPECT_EQ(warnings.origins, expected_origins);
      }
    }
  }
}

TEST(CompatibilityTest, CallOperatorRethrowsTheNodesExceptionAsThrown) {
  absl::StatusOr<torch::jit::Module> module = ModuleFromSource(R"(
def forward(self, x, y, l: List[int], i: int):
    assert i >= 0, "i is negative"
    return x + y, l[i]
)");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<StaticModule::Ptr> prepared = StaticModule::FromModule(*module, false);
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  StaticRuntime runtime(*prepared);
  const c10::List<int64_t> list({1, 2});
  const at::Tensor x = at::ones({7}), y = at::ones({5});

  // What the JIT throws, and what operator() throws, for each failure.
  auto jit_message = [&](std::vector<c10::IValue> args) -> std::string {
    try {
      module->forward(std::move(args));
    } catch (const c10::Error& e) {
      return e.what_without_backtrace();
    } catch (const std::exception& e) {
      return e.what();
    }
    return "";
  };
  try {
    runtime({x, x, list, int64_t{5}});
    ADD_FAILURE() << "no exception";
  } catch (const std::out_of_range& e) {
    EXPECT_STREQ(e.what(), "list index out of range");
    EXPECT_THAT(jit_message({x, x, list, int64_t{5}}), HasSubstr(e.what()));
    EXPECT_EQ(runtime.last_error().code(), absl::StatusCode::kOutOfRange);
    EXPECT_THAT(std::string(runtime.last_error().message()), HasSubstr("aten::__getitem__"));
  }
  try {
    runtime({x, y, list, int64_t{0}});
    ADD_FAILURE() << "no exception";
  } catch (const c10::Error& e) {
    EXPECT_THAT(e.what_without_backtrace(),
                HasSubstr("The size of tensor a (7) must match the size of tensor b (5)"));
    EXPECT_THAT(jit_message({x, y, list, int64_t{0}}), HasSubstr(e.what_without_backtrace()));
    EXPECT_THAT(std::string(runtime.last_error().message()), HasSubstr("aten::add"));
  }
  try {
    runtime({x, x, list, int64_t{-1}});
    ADD_FAILURE() << "no exception";
  } catch (const torch::jit::JITException& e) {
    EXPECT_THAT(e.what(), HasSubstr("i is negative"));
    EXPECT_EQ(runtime.last_error().code(), absl::StatusCode::kAborted);
  }
  // Arguments that do not fit: a c10::Error with the Status message.
  try {
    runtime({x});
    ADD_FAILURE() << "no exception";
  } catch (const c10::Error& e) {
    EXPECT_THAT(e.what_without_backtrace(), HasSubstr("argument"));
    EXPECT_EQ(runtime.last_node_exception(), nullptr);
  }
  // Still usable, and clean.
  const c10::IValue good = runtime({x, x, list, int64_t{1}});
  EXPECT_TRUE(good.toTupleRef().elements()[0].toTensor().equal(at::full({7}, 2.0)));
  EXPECT_TRUE(runtime.last_error().ok());
  EXPECT_EQ(runtime.NumHeldValues(), 0u);
}

// PyTorch's Static Runtime makes no plan until a run succeeds: a first run
// that fails halfway must not leave a plan of the tensors it got to.
TEST(CompatibilityTest, AFailedFirstRunLeavesNoPlan) {
  absl::StatusOr<torch::jit::Module> module = ModuleFromSource(R"(
def forward(self, x, w):
    a = x * 2.0
    b = a + 1.0
    c = torch.mm(b, w)
    d = c.relu() + 3.0
    return d.sum()
)");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<StaticModule::Ptr> prepared = StaticModule::FromModule(*module, false);
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  ASSERT_GT((*prepared)->planned_tensors(), 2u);
  const std::vector<c10::IValue> good = {at::randn({4, 8}), at::randn({8, 16})};
  StaticRuntime after_failure(*prepared);
  ASSERT_FALSE(after_failure.Run({at::randn({4, 8}), at::randn({3, 16})}).ok());
  EXPECT_EQ(after_failure.memory_stats().intermediates.replans, 0u);
  ASSERT_TRUE(after_failure.Run(good).ok());
  StaticRuntime fresh(*prepared);
  ASSERT_TRUE(fresh.Run(good).ok());
  const ArenaStats failed_first = after_failure.memory_stats().intermediates;
  const ArenaStats succeeded_first = fresh.memory_stats().intermediates;
  EXPECT_EQ(failed_first.replans, succeeded_first.replans);
  EXPECT_EQ(failed_first.greedy_by_size_bytes, succeeded_first.greedy_by_size_bytes);
  EXPECT_EQ(after_failure.DescribeMemoryPlan().planned_bytes,
            fresh.DescribeMemoryPlan().planned_bytes);
}

// A run that fails after making large outputs does not size the output
// slab: only successful runs teach it.
TEST(CompatibilityTest, AFailedRunDoesNotSizeTheOutputSlab) {
  absl::StatusOr<torch::jit::Module> module = ModuleFromSource(R"(
def forward(self, x, n: int):
    y = x * 2.0
    z = y + 1.0
    assert n >= 0, "n is negative"
    return y, z
)");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<StaticModule::Ptr> prepared = StaticModule::FromModule(*module, false);
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  StaticRuntime runtime(*prepared);
  const std::vector<c10::IValue> small = {at::randn({8}), int64_t{1}};
  ASSERT_TRUE(runtime.Run(small).ok());
  ASSERT_TRUE(runtime.Run(small).ok());
  const size_t slab_bytes = runtime.memory_stats().output_slab_bytes;
  ASSERT_GT(slab_bytes, 0u);
  ASSERT_FALSE(runtime.Run({at::randn({100000}), int64_t{-1}}).ok());
  ASSERT_TRUE(runtime.Run(small).ok());
  EXPECT_EQ(runtime.memory_stats().output_slab_bytes, slab_bytes);
}

// Elementwise ops on a tensor that is contiguous but whose size-1 dimension
// has another stride (a transposed [2, 1]) give ATen's result strides, which
// a model can read (found by //fuzz:random_graph_test).
TEST(CompatibilityTest, ResultStridesOfSize1DimensionsAreATensAfterElementwiseOps) {
  absl::StatusOr<torch::jit::Module> module = ModuleFromSource(R"(
def forward(self, x, y):
    v = x.transpose(0, 1)
    return ((v * 2.0).stride(0), (v + 1.0).stride(0), (v - v).stride(0), (v * v).stride(0),
            v.clamp(-1.0, 1.0).stride(0), (v < 0.5).stride(0), (v * y).stride(0),
            (v * 0.5 + y).stride(0))
)");
  ASSERT_TRUE(module.ok()) << module.status();
  ExpectMatchesTheJit(*module, false,
                      {{at::randn({2, 1}), at::randn({1, 2})},
                       {at::randn({3, 1}), at::randn({1, 3})},
                       {at::randn({2, 1}), at::randn({1})}});
}

// clone(memory_format=preserve) of a strided input keeps its strides, as
// ATen's does, and a larger input grows the planned tensor.
TEST(CompatibilityTest, CloneOfAStridedInputFollowsItsSizeAndLayout) {
  absl::StatusOr<torch::jit::Module> module = ModuleFromSource(R"(
def forward(self, x):
    y = x.clone()
    z = x.permute([1, 0]).clone()
    return (y * 2.0).sum() + (z * 3.0).sum(), y.stride(), z.stride(), z.sum(0)
)");
  ASSERT_TRUE(module.ok()) << module.status();
  const std::vector<std::vector<c10::IValue>> input_sets = {
      {at::randn({4, 3}).t()},                       // transposed
      {at::randn({40, 60}).t()},                     // larger
      {at::randn({30, 80}).slice(1, 0, 80, 2)},      // not dense
      {at::randn({2, 3, 5}).permute({2, 0, 1})[0]},  // an offset view
  };
  ExpectMatchesTheJit(*module, false, input_sets);
  absl::StatusOr<StaticModule::Ptr> prepared = StaticModule::FromModule(*module, false);
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  StaticRuntime runtime(*prepared);
  ASSERT_TRUE(runtime.Run(input_sets[0]).ok());
  const size_t small = runtime.memory_stats().intermediates.greedy_by_size_bytes;
  ASSERT_TRUE(runtime.Run(input_sets[1]).ok());
  const size_t large = runtime.memory_stats().intermediates.greedy_by_size_bytes;
  EXPECT_GE(large, 40u * 60u * sizeof(float) * 2);
  EXPECT_GT(large, small);
}

// Runs `source` (clone with a memory format) on a small input and then on a
// larger one, dense and strided: the planned memory grows with the input
// under every option set that plans memory.
void ExpectClonePlanGrows(const char* source) {
  absl::StatusOr<torch::jit::Module> module = ModuleFromSource(source);
  ASSERT_TRUE(module.ok()) << module.status();
  const at::Tensor small = at::randn({3, 2}).as_strided({3, 2}, {1, 3});
  const at::Tensor larger = at::randn({30, 20}).as_strided({30, 20}, {1, 3});
  const at::Tensor dense_small = at::randn({2, 3});
  const at::Tensor dense_larger = at::randn({20, 30});
  for (const c10::MemoryFormat format :
       {c10::MemoryFormat::Contiguous, c10::MemoryFormat::Preserve}) {
    const int64_t format_value = static_cast<int64_t>(format);
    for (const auto& [first, second] :
         {std::pair(small, larger), std::pair(dense_small, dense_larger)}) {
      ExpectMatchesTheJit(*module, false, {{first, format_value}, {second, format_value}});
      for (const golden::OptionSet& option_set : golden::OptionSets()) {
        if (!option_set.options.optimize_memory) continue;
        SCOPED_TRACE(option_set.name);
        absl::StatusOr<StaticModule::Ptr> prepared =
            StaticModule::FromModule(*module, false, option_set.options);
        ASSERT_TRUE(prepared.ok()) << prepared.status();
        StaticRuntime runtime(*prepared);
        ASSERT_TRUE(runtime.Run({first, format_value}).ok());
        runtime.ReleaseOutputs();
        const size_t before = runtime.memory_stats().intermediates.greedy_by_size_bytes;
        const size_t planned_before = runtime.DescribeMemoryPlan().planned_bytes;
        ASSERT_TRUE(runtime.Run({second, format_value}).ok());
        runtime.ReleaseOutputs();
        const size_t after = runtime.memory_stats().intermediates.greedy_by_size_bytes;
        EXPECT_GE(after, static_cast<size_t>(second.numel()) * sizeof(float))
            << "format " << format << ", " << before << " B before";
        EXPECT_GT(after, before) << "format " << format;
        // What the runtime reports is the plan it uses next.
        const size_t planned_after = runtime.DescribeMemoryPlan().planned_bytes;
        EXPECT_GE(planned_after, static_cast<size_t>(second.numel()) * sizeof(float))
            << "format " << format << ", " << planned_before << " B planned before";
        EXPECT_GT(planned_after, planned_before) << "format " << format;
      }
    }
  }
}

// PyTorch's StaticRuntime.Clone, and a clone of such a clone.
TEST(CompatibilityTest, ClonePlanGrowsWithItsInput) {
  for (const char* source : {R"(
def forward(self, input, memory_format: int):
    a = torch.clone(input, memory_format=memory_format)
    return (a * a)
)",
                             R"(
def forward(self, input, memory_format: int):
    return torch.clone(input, memory_format=memory_format).clone()
)"}) {
    SCOPED_TRACE(source);
    ExpectClonePlanGrows(source);
  }
}

// PyTorch's StaticRuntime.Clone exactly: a dense 2x3 input, then a
// strided 30x20 one (without a memory format); a strided 3x2 input cloned
// contiguous, then the 30x20 one preserved. Under every option set that
// plans memory (managed output tensors too), the plan the runtime reports
// after the larger run holds the larger clone.
TEST(CompatibilityTest, PyTorchsCloneCasesReportTheGrownPlan) {
  const at::Tensor a = at::randn({2, 3});
  const at::Tensor b = at::randn({3, 2}).as_strided({3, 2}, {1, 3});
  const at::Tensor b_larger = at::randn({30, 20}).as_strided({30, 20}, {1, 3});
  const int64_t contiguous = static_cast<int64_t>(c10::MemoryFormat::Contiguous);
  const int64_t preserve = static_cast<int64_t>(c10::MemoryFormat::Preserve);
  struct Case {
    const char* source;
    std::vector<c10::IValue> first, second;
  };
  const std::vector<Case> cases = {
      {"def forward(self, input):\n    a = torch.clone(input)\n    return (a * a)\n",
       {a},
       {b_larger}},
      {"def forward(self, input, memory_format: int):\n"
       "    a = torch.clone(input, memory_format=memory_format)\n    return (a * a)\n",
       {b, contiguous},
       {b_larger, preserve}},
  };
  for (const Case& c : cases) {
    absl::StatusOr<torch::jit::Module> module = ModuleFromSource(c.source);
    ASSERT_TRUE(module.ok()) << module.status();
    ExpectMatchesTheJit(*module, false, {c.first, c.second});
    for (const golden::OptionSet& option_set : golden::OptionSets()) {
      if (!option_set.options.optimize_memory) continue;
      SCOPED_TRACE(absl::StrCat(option_set.name, ": ", c.source));
      absl::StatusOr<StaticModule::Ptr> prepared =
          StaticModule::FromModule(*module, false, option_set.options);
      ASSERT_TRUE(prepared.ok()) << prepared.status();
      StaticRuntime runtime(*prepared);
      ASSERT_TRUE(runtime.Run(c.first).ok());
      runtime.ReleaseOutputs();
      const size_t before = runtime.DescribeMemoryPlan().planned_bytes;
      ASSERT_TRUE(runtime.Run(c.second).ok());
      // Before and after the outputs are released.
      for (int released = 0; released < 2; ++released) {
        const size_t after = runtime.DescribeMemoryPlan().planned_bytes;
        EXPECT_GE(after, 30u * 20u * sizeof(float))
            << before << " B planned before; outputs released: " << released;
        EXPECT_GT(after, before) << "outputs released: " << released;
        runtime.ReleaseOutputs();
      }
    }
  }
}

}  // namespace
}  // namespace static_runtime
