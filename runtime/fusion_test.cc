// Pointwise fusion end to end: random programs of elementwise ops (random op
// trees over two tensor inputs, Python numbers and earlier results; shapes
// with 0 and 1 sizes; inputs broadcast as rows or columns, expanded, views
// of wider tensors; transposed inputs, other broadcasts and non-float
// inputs, which take the unfused path; int32, int64 and bool inputs) give,
// fused, exactly the JIT's outputs, in and out of inference mode.
#include <cmath>
#include <filesystem>
#include <functional>
#include <iterator>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "ATen/ATen.h"
#include "ATen/Parallel.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"
#include "ir/operators/operators.h"
#include "load/load.h"
#include "rapidcheck.h"
#include "rapidcheck/gtest.h"
#include "runtime/static_runtime.h"
#include "verify/reference.h"

namespace static_runtime {
namespace {

// The expressions a random program draws from, each equally likely. In a
// pattern, $a is the operand, $b another value drawn at each use, $n a small
// integer, $k a float or integer threshold and $cmp a comparison.
constexpr const char* kExpressions[] = {
    "$a + $b",
    "$a - $b",
    "$a * $b",
    "$a / $b",
    "$a * $n.5",
    "$a + $n",
    "torch.relu($a)",
    "torch.sigmoid($a)",
    "torch.tanh($a)",
    "torch.exp($a)",
    "torch.log(torch.abs($a))",
    "torch.sqrt(torch.abs($a))",
    "torch.rsqrt($a)",
    "torch.silu($a)",
    "torch.gelu($a)",
    "torch.gelu($a, approximate='tanh')",
    "torch.hardswish($a)",
    "torch.hardsigmoid($a)",
    "torch.leaky_relu($a, 0.125)",
    "torch.hardtanh($a, -2.0, 1.5)",
    "torch.clamp(-$a, -1.5, 2.0)",
    "torch.where($a > $b, $a, $b)",
    "$a.masked_fill($b < 0.5, -1.5)",
    "$a * ($b >= 0)",
    "torch.where($b != $a, 0.25, $a)",
    "($a > $b).float() * $b",
    "($a > 0) + 2",                     // bool and int: an int64 result, never fused
    "$a.float()",                       // a conversion (of a float: a copy when fused)
    "($a > $k)",                        // an integer tensor compares in floats only with a float
    "$a / $b",                          // division twice as likely
    "torch.where($a.to(11), $b, 0.5)",  // to(bool) (11 is torch.bool): nonzero (NaN too)
    "($a > $b).to(4).float() * $b",     // to(int64) (4) of a bool, back in float arithmetic
    "($a != 0.5).to(3)",                // to(int32) (3) of a bool, a result of its own
    "$a$cmp$b",                         // a bool value
};

// `pattern` with its placeholders drawn; `pick` draws a value.
std::string DrawExpression(absl::string_view pattern, const std::string& a,
                           const std::function<std::string()>& pick) {
  std::string expression;
  while (!pattern.empty()) {
    if (absl::ConsumePrefix(&pattern, "$a")) {
      expression += a;
    } else if (absl::ConsumePrefix(&pattern, "$b")) {
      expression += pick();
    } else if (absl::ConsumePrefix(&pattern, "$n")) {
      absl::StrAppend(&expression, *rc::gen::inRange(-3, 4));
    } else if (absl::ConsumePrefix(&pattern, "$k")) {
      expression += *rc::gen::element<std::string>("0.5", "3");
    } else if (absl::ConsumePrefix(&pattern, "$cmp")) {
      expression += *rc::gen::element<std::string>(" < ", " == ", " <= ");
    } else {
      expression += pattern.front();
      pattern.remove_prefix(1);
    }
  }
  return expression;
}

// One random program: `forward(x, y)` with `num_ops` elementwise ops, each on
// earlier values (x, y, results, float or bool) or numbers, returning the
// last result and one earlier one.
std::string RandomProgram() {
  const int num_ops = *rc::gen::inRange(2, 12);
  std::vector<std::string> values = {"x", "y"};
  std::string body;
  for (int i = 0; i < num_ops; ++i) {
    auto pick = [&] { return values[*rc::gen::inRange<size_t>(0, values.size())]; };
    const std::string a = pick();
    const char* pattern = kExpressions[*rc::gen::inRange<size_t>(0, std::size(kExpressions))];
    const std::string name = absl::StrCat("v", i);
    body += absl::StrCat("    ", name, " = ", DrawExpression(pattern, a, pick), "\n");
    values.push_back(name);
  }
  const std::string earlier = values[*rc::gen::inRange<size_t>(2, values.size())];
  return absl::StrCat("def forward(self, x, y):\n", body, "    return (", values.back(), ", ",
                      earlier, ")\n");
}

// Layouts of a random input.
enum class Layout { kContiguous, kTransposed, kNarrowed, kStepped };

at::Tensor RandomTensor(const std::vector<int64_t>& shape, Layout layout) {
  if (shape.empty() || layout == Layout::kContiguous) return at::randn(shape) * 4;
  if (layout == Layout::kTransposed) {
    if (shape.size() < 2) return at::randn(shape) * 4;
    return (at::randn(shape) * 4).transpose(0, 1).contiguous().transpose(0, 1);
  }
  // A view of a wider tensor: the first columns, or every other column.
  std::vector<int64_t> wider = shape;
  const bool stepped = layout == Layout::kStepped;
  wider.back() = stepped ? 2 * shape.back() : shape.back() + 3;
  const at::Tensor whole = at::randn(wider) * 4;
  return stepped ? whole.slice(-1, 0, c10::nullopt, 2) : whole.narrow(-1, 0, shape.back());
}

bool HasFusedNode(const torch::jit::Graph& graph) {
  for (const torch::jit::Node* node : graph.nodes()) {
    if (node->kind() == ops::kFusedPointwise) return true;
  }
  return false;
}

RC_GTEST_PROP(Fusion, RandomPointwiseProgramsMatchTheJit, ()) {
  const std::string source = RandomProgram();
  absl::StatusOr<torch::jit::Module> module = ModuleFromSource(source);
  RC_ASSERT(module.ok());
  for (bool inference_mode : {true, false}) {
    Options options;
    options.inference_mode = inference_mode;
    absl::StatusOr<StaticModule::Ptr> fused = StaticModule::FromModule(*module, false, options);
    RC_ASSERT(fused.ok());
    StaticRuntime runtime(*fused);
    for (int call = 0; call < 3; ++call) {
      std::vector<int64_t> shape = *rc::gen::container<std::vector<int64_t>>(
          *rc::gen::inRange(0, 4), rc::gen::inRange<int64_t>(0, 40));
      std::vector<int64_t> y_shape = shape;
      const int kind = *rc::gen::inRange(0, 13);
      if (kind == 1 && !shape.empty()) y_shape.back() = 1;              // a column, broadcast
      if (kind == 4 && !shape.empty()) y_shape.erase(y_shape.begin());  // a row, broadcast
      if (kind == 5 && shape.size() >= 3) y_shape[1] = 1;               // neither: the unfused path
      Layout x_layout = Layout::kContiguous;
      if (kind == 2) x_layout = Layout::kTransposed;  // dims out of order: the unfused path
      if (kind == 6) x_layout = Layout::kNarrowed;
      if (kind == 7) x_layout = Layout::kStepped;
      const at::Tensor x = RandomTensor(shape, x_layout);
      at::Tensor y = RandomTensor(y_shape, kind == 8 ? Layout::kNarrowed : Layout::kContiguous);
      if (kind == 3) y = y.to(at::kDouble);  // another dtype: unfused path
      if (kind == 10) y = y > 0;             // a bool tensor
      // An integer tensor, with values floats hold exactly or not.
      if (kind == 11) y = (y * 1000).to(at::kInt);
      if (kind == 12) y = (y * 1e7).to(at::kLong) * 7;
      if (kind == 9 && !shape.empty())
        y = RandomTensor({shape.back()}, Layout::kContiguous).expand(shape);
      const std::vector<c10::IValue> inputs = {x, y};
      c10::IValue expected;
      try {
        expected = module->forward(reference::DeepCopy(inputs));
      } catch (const std::exception&) {
        continue;
      }
      absl::StatusOr<c10::IValue> actual = runtime.Run(inputs);
      if (!actual.ok()) {
        RC_FAIL(absl::StrCat(actual.status().ToString(), "\nprogram:\n", source, "shapes ",
                             reference::Shapes(inputs[0]), " ", reference::Shapes(inputs[1])));
      }
      const absl::Status same =
          reference::Compare(expected, *actual, reference::Tolerance::kBitwise);
      if (!same.ok()) {
        RC_FAIL(absl::StrCat(
            same.ToString(), "\nprogram:\n", source, "shapes ", reference::Shapes(inputs[0]), " ",
            reference::Shapes(inputs[1]), " strides ", absl::StrJoin(x.strides(), ","), " ",
            absl::StrJoin(y.strides(), ","), " call ", call, " inference mode ", inference_mode));
      }
    }
  }
}

TEST(Fusion, AChainBecomesOneNodeThatMatchesTheJit) {
  absl::StatusOr<torch::jit::Module> module = ModuleFromSource(R"(
def forward(self, x, y):
    a = torch.relu(x + y)
    b = torch.sigmoid(a * 0.5)
    return torch.tanh(b - x), a
)");
  ASSERT_TRUE(module.ok());
  absl::StatusOr<StaticModule::Ptr> fused = StaticModule::FromModule(*module, false);
  ASSERT_TRUE(fused.ok()) << fused.status();
  EXPECT_TRUE(HasFusedNode(*(*fused)->graph()));
  Options off;
  off.enable_fusion = false;
  absl::StatusOr<StaticModule::Ptr> unfused = StaticModule::FromModule(*module, false, off);
  ASSERT_TRUE(unfused.ok());
  EXPECT_FALSE(HasFusedNode(*(*unfused)->graph()));
  StaticRuntime runtime(*fused);
  for (int64_t n : {1, 16, 100, 5000}) {
    const std::vector<c10::IValue> inputs = {at::randn({n}), at::randn({n})};
    const c10::IValue expected = module->forward(reference::DeepCopy(inputs));
    absl::StatusOr<c10::IValue> actual = runtime.Run(inputs);
    ASSERT_TRUE(actual.ok()) << actual.status();
    EXPECT_TRUE(reference::Compare(expected, *actual, reference::Tolerance::kBitwise).ok())
        << "n=" << n;
  }
}

int64_t ThreadsOfThisProcess() {
  return std::distance(std::filesystem::directory_iterator("/proc/self/task"),
                       std::filesystem::directory_iterator());
}

// A group over more values than ATen's grain splits them over the intra-op
// threads: on a fresh thread with two intra-op threads, its run starts the
// thread's OpenMP worker (at::parallel_for is serial in code built without
// OpenMP, which the fused kernel's package must be built with).
TEST(Fusion, ALargeGroupRunsOnTheIntraOpThreads) {
#ifndef _OPENMP
  GTEST_SKIP() << "built without OpenMP (clang or ThreadSanitizer): parallel loops are serial";
#endif
  absl::StatusOr<torch::jit::Module> module = ModuleFromSource(R"(
def forward(self, x):
    return torch.relu(x * 2.0 + 1.0)
)");
  ASSERT_TRUE(module.ok());
  absl::StatusOr<StaticModule::Ptr> fused = StaticModule::FromModule(*module, false);
  ASSERT_TRUE(fused.ok()) << fused.status();
  ASSERT_TRUE(HasFusedNode(*(*fused)->graph()));
  const std::vector<c10::IValue> inputs = {at::randn({1 << 20})};
  const c10::IValue expected = module->forward(reference::DeepCopy(inputs));
  const int previous = at::get_num_threads();
  at::set_num_threads(2);
  StaticRuntime runtime(*fused);
  int64_t before = 0, after = 0;
  absl::StatusOr<c10::IValue> actual;
  std::thread([&] {
    before = ThreadsOfThisProcess();
    actual = runtime.Run(inputs);
    after = ThreadsOfThisProcess();
  }).join();
  at::set_num_threads(previous);
  ASSERT_TRUE(actual.ok()) << actual.status();
  EXPECT_TRUE(reference::Compare(expected, *actual, reference::Tolerance::kBitwise).ok());
  EXPECT_EQ(after, before + 1) << "the group ran on the calling thread alone";
}

// Counts the runs of fused groups that took the fused form: their values
// not used after the group stay empty (the unfused path writes them all).
class FusedFormCounter : public NodeObserver {
 public:
  void After(const NodeDescription& node, const NodeIO& values) override {
    if (node.node->kind() != ops::kFusedPointwise) return;
    bool fused = true;
    for (size_t i = node.node->i(ops::kUsedOutputs); i < values.num_outputs(); ++i) {
      fused = fused && values.Output(i).isNone();
    }
    ++(fused ? fused_runs : unfused_runs);
  }
  int fused_runs = 0;
  int unfused_runs = 0;
};

TEST(Fusion, TheFusedFormRunsOnViewsBroadcastsAndMasks) {
  absl::StatusOr<torch::jit::Module> module = ModuleFromSource(R"(
def forward(self, x, y, m):
    a = torch.where(x > y, x * 2.0, y)
    b = a.masked_fill(m, -1.0)
    return torch.tanh(b) + (y > 0.25).float(), b < 0.5
)");
  ASSERT_TRUE(module.ok());
  absl::StatusOr<StaticModule::Ptr> prepared = StaticModule::FromModule(*module, false);
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  StaticRuntime runtime(*prepared);
  const at::Tensor x = at::randn({8, 16});
  const at::Tensor y = at::randn({8, 16});
  const at::Tensor mask = at::randn({8, 16}) > 0;
  struct Case {
    const char* name;
    std::vector<c10::IValue> inputs;
    bool fused;
  };
  const std::vector<Case> cases = {
      {"contiguous", {x, y, mask}, true},
      {"a chunk, a bool column",
       {at::randn({8, 48}).chunk(3, 1)[1], y, at::randn({8, 1}) > 0},
       true},
      {"a row, an expanded mask",
       {x, at::randn({16}), (at::randn({16}) > 0).expand({8, 16})},
       true},
      {"every other column", {at::randn({8, 32}).slice(1, 0, c10::nullopt, 2), y, mask}, true},
      {"a transposed input", {at::randn({16, 8}).t(), y, mask}, false},
      {"a float mask", {x, y, mask.to(at::kFloat)}, false},
  };
  for (const Case& c : cases) {
    c10::IValue expected;
    try {
      expected = module->forward(reference::DeepCopy(c.inputs));
    } catch (const std::exception& e) {
      ASSERT_FALSE(c.fused) << c.name << ": " << e.what();
      continue;
    }
    FusedFormCounter counter;
    absl::StatusOr<c10::IValue> actual = runtime.RunObserved(c.inputs, {}, counter);
    ASSERT_TRUE(actual.ok()) << c.name << ": " << actual.status();
    EXPECT_TRUE(reference::Compare(expected, *actual, reference::Tolerance::kBitwise).ok())
        << c.name;
    EXPECT_EQ(counter.fused_runs, c.fused ? 1 : 0) << c.name;
    EXPECT_EQ(counter.unfused_runs, c.fused ? 0 : 1) << c.name;
  }
}

TEST(Fusion, BoolsPromoteAsInATen) {
  absl::StatusOr<torch::jit::Module> module = ModuleFromSource(R"(
def forward(self, x, y):
    a = x > y
    b = y > 0.0
    return (a + 2, a * 0.5, a + b, torch.where(b, a, 3), torch.where(b, a, 0.5) * x)
)");
  ASSERT_TRUE(module.ok());
  absl::StatusOr<StaticModule::Ptr> prepared = StaticModule::FromModule(*module, false);
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  StaticRuntime runtime(*prepared);
  const std::vector<c10::IValue> inputs = {at::randn({8, 16}), at::randn({8, 16})};
  const c10::IValue expected = module->forward(reference::DeepCopy(inputs));
  absl::StatusOr<c10::IValue> actual = runtime.Run(inputs);
  ASSERT_TRUE(actual.ok()) << actual.status();
  const absl::Status same = reference::Compare(expected, *actual, reference::Tolerance::kBitwise);
  EXPECT_TRUE(same.ok()) << same;
  const auto& outputs = actual->toTupleRef().elements();
  EXPECT_EQ(outputs[0].toTensor().scalar_type(), at::kLong);
  EXPECT_EQ(outputs[1].toTensor().scalar_type(), at::kFloat);
  EXPECT_EQ(outputs[2].toTensor().scalar_type(), at::kBool);
  EXPECT_EQ(outputs[3].toTensor().scalar_type(), at::kLong);
  EXPECT_EQ(outputs[4].toTensor().scalar_type(), at::kFloat);
}

// Integer tensors take the fused form where ATen computes in float: a
// conversion, arithmetic with a float, true division, a comparison with a
// float; integer arithmetic and integer comparisons take the unfused path.
TEST(Fusion, IntegerTensorsFuseWhereATenComputesInFloat) {
  struct Case {
    const char* source;
    bool fused;
  };
  const std::vector<Case> cases = {
      {"    return torch.relu(n.float() * x)\n", true},
      {"    return torch.sigmoid(n * 0.5) + x\n", true},
      {"    return (n / 3) * x\n", true},
      {"    return torch.where(n > 0.5, x, 1.0) * x\n", true},
      {"    return torch.where(n.to(11), x, 1.0) * x\n", true},
      {"    return (n + 1) * 3\n", false},
      {"    return ((x > 0.5).to(4).float() + (n > 0.5).to(3)) * x\n", true},
      {"    return torch.where(n > 3, x, 1.0) * x\n", false},
  };
  for (const Case& c : cases) {
    absl::StatusOr<torch::jit::Module> module =
        ModuleFromSource(absl::StrCat("def forward(self, x, n):\n", c.source));
    ASSERT_TRUE(module.ok()) << module.status();
    absl::StatusOr<StaticModule::Ptr> prepared = StaticModule::FromModule(*module, false);
    ASSERT_TRUE(prepared.ok()) << prepared.status();
    ASSERT_TRUE(HasFusedNode(*(*prepared)->graph())) << c.source;
    StaticRuntime runtime(*prepared);
    for (at::ScalarType dtype : {at::kInt, at::kLong}) {
      // Values beyond 2^24, which floats round.
      const std::vector<c10::IValue> inputs = {
          at::randn({8, 16}),
          at::randint(-(int64_t{1} << 30), int64_t{1} << 30, {8, 16}).to(dtype)};
      const c10::IValue expected = module->forward(reference::DeepCopy(inputs));
      FusedFormCounter counter;
      absl::StatusOr<c10::IValue> actual = runtime.RunObserved(inputs, {}, counter);
      ASSERT_TRUE(actual.ok()) << actual.status();
      const absl::Status same =
          reference::Compare(expected, *actual, reference::Tolerance::kBitwise);
      EXPECT_TRUE(same.ok()) << c.source << same;
      EXPECT_EQ(counter.fused_runs, c.fused ? 1 : 0) << c.source << dtype;
    }
  }
}

TEST(Fusion, AMaskedFillValueFloatCannotHoldFailsAsInTheJit) {
  absl::StatusOr<torch::jit::Module> module = ModuleFromSource(R"(
def forward(self, x, m, value: float):
    return (x * 2.0).masked_fill(m, value)
)");
  ASSERT_TRUE(module.ok());
  absl::StatusOr<StaticModule::Ptr> prepared = StaticModule::FromModule(*module, false);
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  StaticRuntime runtime(*prepared);
  const at::Tensor x = at::randn({4, 8});
  const at::Tensor mask = at::randn({4, 8}) > 0;
  EXPECT_THROW(module->forward({x, mask, 1e300}), std::exception);
  EXPECT_FALSE(runtime.Run({x, mask, 1e300}).ok());
  // The runtime stays usable, and infinities are values like any other.
  for (double value : {-1.5, -std::numeric_limits<double>::infinity()}) {
    const c10::IValue expected = module->forward({x, mask, value});
    absl::StatusOr<c10::IValue> actual = runtime.Run({x, mask, value});
    ASSERT_TRUE(actual.ok()) << actual.status();
    EXPECT_TRUE(reference::Compare(expected, *actual, reference::Tolerance::kBitwise).ok());
  }
}

}  // namespace
}  // namespace static_runtime
