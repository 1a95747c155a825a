// Bad input and failing nodes: every error is a Status that names what was
// wrong, nothing runs on bad arguments, and the runtime holds nothing
// afterwards and runs the next good call correctly.
#include <string>
#include <vector>

#include "ATen/ATen.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "load/load.h"
#include "runtime/static_runtime.h"

namespace static_runtime {
namespace {

using testing::AllOf;
using testing::HasSubstr;

constexpr char kSource[] = R"(
def forward(self, x, features: Dict[str, Tensor], scale: float = 2.0):
    y = torch.mm(x, self.w) * scale
    return y + features["bias"]
)";

class ErrorsTest : public testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<torch::jit::Module> module =
        ModuleFromSource(kSource, {{"w", at::randn({3, 4})}});
    ASSERT_TRUE(module.ok()) << module.status();
    module_ = *module;
    absl::StatusOr<StaticModule::Ptr> static_module =
        StaticModule::FromModule(module_, /*is_frozen=*/false);
    ASSERT_TRUE(static_module.ok()) << static_module.status();
    runtime_ = std::make_unique<StaticRuntime>(*static_module);
  }

  c10::Dict<std::string, at::Tensor> Features(at::Tensor bias) {
    c10::Dict<std::string, at::Tensor> features;
    features.insert("bias", bias);
    return features;
  }

  // The error of a bad call, after checking the runtime is clean and still
  // computes a good call exactly like the JIT.
  std::string ErrorOf(std::vector<c10::IValue> args, const KwargMap& kwargs = {}) {
    absl::StatusOr<c10::IValue> result = runtime_->Run(std::move(args), kwargs);
    EXPECT_FALSE(result.ok());
    EXPECT_EQ(runtime_->NumHeldValues(), 0u);
    const at::Tensor x = at::randn({2, 3});
    const auto features = Features(at::randn({4}));
    absl::StatusOr<c10::IValue> good = runtime_->Run({x, features});
    EXPECT_TRUE(good.ok()) << good.status();
    if (good.ok()) {
      EXPECT_TRUE(good->toTensor().allclose(module_.forward({x, features}).toTensor()));
    }
    return result.ok() ? "" : std::string(result.status().message());
  }

  torch::jit::Module module_;
  std::unique_ptr<StaticRuntime> runtime_;
};

TEST_F(ErrorsTest, TooManyArguments) {
  EXPECT_THAT(ErrorOf({at::randn({2, 3}), Features(at::randn({4})), 1.0, 5}),
              HasSubstr("forward() takes 3 arguments but 4 positional arguments were given"));
}

TEST_F(ErrorsTest, MissingArgument) {
  EXPECT_THAT(ErrorOf({at::randn({2, 3})}),
              HasSubstr("missing argument 1 ('features') of type Dict[str, Tensor]"));
}

TEST_F(ErrorsTest, UnknownKeywordArgument) {
  EXPECT_THAT(ErrorOf({at::randn({2, 3}), Features(at::randn({4}))}, {{"scal", 1.0}}),
              AllOf(HasSubstr("unexpected keyword argument 'scal'"),
                    HasSubstr("arguments: x, features, scale")));
}

TEST_F(ErrorsTest, ArgumentGivenTwice) {
  EXPECT_THAT(ErrorOf({at::randn({2, 3})}, {{"x", at::randn({2, 3})}}),
              HasSubstr("multiple values for argument 0 ('x')"));
}

TEST_F(ErrorsTest, WrongType) {
  EXPECT_THAT(ErrorOf({int64_t{3}, Features(at::randn({4}))}),
              HasSubstr("argument 0 ('x'): expected Tensor, got int"));
  EXPECT_THAT(ErrorOf({at::randn({2, 3}), Features(at::randn({4})), "two"}),
              HasSubstr("argument 2 ('scale'): expected float, got str"));
}

TEST_F(ErrorsTest, WrongContainerElementType) {
  c10::Dict<std::string, int64_t> ints;
  ints.insert("bias", 1);
  EXPECT_THAT(ErrorOf({at::randn({2, 3}), ints}),
              HasSubstr("argument 1 ('features'): expected Dict[str, Tensor], got Dict[str, int]"));
}

TEST_F(ErrorsTest, ThrowingNodeNamesNodeSourceAndShapes) {
  EXPECT_THAT(ErrorOf({at::randn({2, 5}), Features(at::randn({4}))}),
              AllOf(HasSubstr("(aten::mm)"), HasSubstr("y = torch.mm(x, self.w) * scale"),
                    HasSubstr("inputs: (Float[2, 5], Float[3, 4])")));
}

TEST_F(ErrorsTest, MissingDictKey) {
  c10::Dict<std::string, at::Tensor> features;
  features.insert("other", at::randn({4}));
  EXPECT_THAT(ErrorOf({at::randn({2, 3}), features}), HasSubstr("KeyError"));
}

// The module of TorchScript `source`, prepared (null, with a test failure,
// if either step fails).
StaticModule::Ptr Prepare(const char* source) {
  absl::StatusOr<torch::jit::Module> module = ModuleFromSource(source);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return nullptr;
  absl::StatusOr<StaticModule::Ptr> prepared =
      StaticModule::FromModule(*module, /*is_frozen=*/false);
  EXPECT_TRUE(prepared.ok()) << prepared.status();
  return prepared.ok() ? *prepared : nullptr;
}

TEST(RuntimeErrorsTest, DeclaredDtypeIsChecked) {
  absl::StatusOr<StaticModule::Ptr> module = StaticModule::FromIR(R"IR(
graph(%x : Float(2, 3), %y : Tensor):
  %z : Tensor = aten::mul(%x, %y)
  return (%z))IR");
  ASSERT_TRUE(module.ok()) << module.status();
  StaticRuntime runtime(*module);
  absl::StatusOr<c10::IValue> bad = runtime.Run({at::ones({2, 3}, at::kLong), at::ones({1})});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(
      std::string(bad.status().message()),
      HasSubstr("argument 0 ('x'): expected Tensor of dtype Float, got Tensor of dtype Long"));
  // Other shapes than the declared example are fine.
  absl::StatusOr<c10::IValue> good = runtime.Run({at::ones({5}), at::ones({1})});
  EXPECT_TRUE(good.ok()) << good.status();
}

TEST(RuntimeErrorsTest, ThrowingFallbackNodeKeepsNoReferenceToItsInputs) {
  // conv2d runs in the JIT fallback, on a per-thread stack.
  absl::StatusOr<StaticModule::Ptr> module = StaticModule::FromIR(R"IR(
graph(%x : Tensor, %w : Tensor):
  %none : NoneType = prim::Constant()
  %one : int[] = prim::Constant[value=[1, 1]]()
  %zero : int[] = prim::Constant[value=[0, 0]]()
  %groups : int = prim::Constant[value=1]()
  %y : Tensor = aten::conv2d(%x, %w, %none, %one, %zero, %one, %groups)
  return (%y))IR");
  ASSERT_TRUE(module.ok()) << module.status();
  ASSERT_EQ((*module)->kernel_counts().fallback, 1u);
  StaticRuntime runtime(*module);
  at::Tensor x = at::ones({1, 2, 4, 4});
  at::Tensor w = at::ones({3, 5, 1, 1});  // 5 input channels: conv2d throws
  ASSERT_FALSE(runtime.Run({x, w}).ok());
  EXPECT_EQ(x.use_count(), 1);
  EXPECT_EQ(w.use_count(), 1);
}

// After a failing out-variant or native node, as after a failing fallback
// (above), the caller's inputs are referenced by the caller alone.
TEST(RuntimeErrorsTest, FailingOutVariantAndNativeNodesKeepNoReferenceToTheInputs) {
  absl::StatusOr<StaticModule::Ptr> module = StaticModule::FromIR(R"IR(
graph(%x : Tensor, %w : Tensor, %i : int):
  %zero : int = prim::Constant[value=0]()
  %y : Tensor = aten::mm(%x, %w)
  %z : Tensor = aten::select(%y, %zero, %i)
  return (%z))IR");
  ASSERT_TRUE(module.ok()) << module.status();
  StaticRuntime runtime(*module);
  at::Tensor x = at::ones({2, 3});
  at::Tensor good_w = at::ones({3, 4});
  at::Tensor bad_w = at::ones({5, 4});
  // mm (an out variant) rejects the shapes.
  absl::StatusOr<c10::IValue> bad_mm = runtime.Run({x, bad_w, int64_t{0}});
  ASSERT_FALSE(bad_mm.ok());
  EXPECT_THAT(std::string(bad_mm.status().message()), HasSubstr("aten::mm"));
  EXPECT_EQ(x.use_count(), 1);
  EXPECT_EQ(bad_w.use_count(), 1);
  // select (a native view kernel) rejects the index.
  absl::StatusOr<c10::IValue> bad_select = runtime.Run({x, good_w, int64_t{7}});
  ASSERT_FALSE(bad_select.ok());
  EXPECT_THAT(std::string(bad_select.status().message()), HasSubstr("aten::select"));
  EXPECT_EQ(x.use_count(), 1);
  EXPECT_EQ(good_w.use_count(), 1);
  EXPECT_EQ(runtime.NumHeldValues(), 0u);
}

TEST(RuntimeErrorsTest, ModelExceptionCarriesTheModelsMessage) {
  StaticModule::Ptr static_module = Prepare(R"(
def forward(self, x):
    assert bool(x.sum() < 100.0), "sum too large"
    return x * 2.0
)");
  ASSERT_NE(static_module, nullptr);
  StaticRuntime runtime(static_module);
  absl::StatusOr<c10::IValue> bad = runtime.Run({at::full({3}, 50.0)});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()),
              AllOf(HasSubstr("prim::RaiseException"), HasSubstr("sum too large")));
  EXPECT_EQ(runtime.NumHeldValues(), 0u);
  absl::StatusOr<c10::IValue> good = runtime.Run({at::ones({3})});
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_TRUE(good->toTensor().equal(at::full({3}, 2.0)));
}

// The code says who is to blame (the README's table): the caller's
// arguments and what kernels reject of them (shapes, dtypes) are
// kInvalidArgument, the model's own raise kAborted, memory kResourceExhausted.
TEST(RuntimeErrorsTest, StatusCodesSayWhatFailed) {
  StaticModule::Ptr static_module = Prepare(R"(
def forward(self, x, y, n: int):
    assert n >= 0, "n is negative"
    z = torch.zeros([n, n])
    return torch.mm(x, y), z.sum()
)");
  ASSERT_NE(static_module, nullptr);
  StaticRuntime runtime(static_module);
  const at::Tensor x = at::randn({2, 3});
  struct Case {
    const char* what;
    std::vector<c10::IValue> args;
    absl::StatusCode code;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"an argument of the wrong type",
       {x, x, 2.5},
       absl::StatusCode::kInvalidArgument,
       "argument 2"},
      {"shapes mm rejects",
       {x, x, int64_t{2}},
       absl::StatusCode::kInvalidArgument,
       "cannot be multiplied"},
      {"the model's raise", {x, x.t(), int64_t{-1}}, absl::StatusCode::kAborted, "n is negative"},
      {"64 TiB of zeros",
       {x, x.t(), int64_t{1} << 22},
       absl::StatusCode::kResourceExhausted,
       "allocate"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<c10::IValue> result = runtime.Run(c.args);
    ASSERT_FALSE(result.ok()) << c.what;
    EXPECT_EQ(result.status().code(), c.code) << c.what << ": " << result.status();
    EXPECT_THAT(std::string(result.status().message()), HasSubstr(c.message)) << c.what;
    EXPECT_EQ(runtime.NumHeldValues(), 0u) << c.what;
  }
  EXPECT_TRUE(runtime.Run({x, x.t(), int64_t{3}}).ok());
}

// A split of a constant folded for the one width it can take
// (passes/fold_constant_splits.h) still fails on any other width with
// ATen's error, a rejected argument, as the JIT's split does.
TEST(RuntimeErrorsTest, FoldedConstantSplitRejectsAnotherWidthAsATenDoes) {
  absl::StatusOr<torch::jit::Module> module = ModuleFromSource(R"(
def forward(self, query, memory):
    E = query.size(-1)
    w_q, w_kv = self.w.split([E, E * 2])
    return torch.linear(query, w_q), torch.linear(memory, w_kv)
)",
                                                               {{"w", at::randn({12, 4})}});
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<StaticModule::Ptr> static_module =
      StaticModule::FromModule(*module, /*is_frozen=*/false);
  ASSERT_TRUE(static_module.ok()) << static_module.status();
  EXPECT_THAT((*static_module)->graph()->toString(), testing::Not(HasSubstr("aten::linear(")))
      << "the split pieces are constant weights, prepacked";
  StaticRuntime runtime(*static_module);
  absl::StatusOr<c10::IValue> bad = runtime.Run({at::randn({2, 3}), at::randn({5, 4})});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument) << bad.status();
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("split_with_sizes expects split_sizes to sum exactly to 12 (input "
                        "tensor's size at dimension 0), but got split_sizes=[3, 6]"));
  EXPECT_EQ(runtime.NumHeldValues(), 0u);
  const std::vector<c10::IValue> good = {at::randn({2, 4}), at::randn({5, 4})};
  absl::StatusOr<c10::IValue> ours = runtime.Run(good);
  ASSERT_TRUE(ours.ok()) << ours.status();
  c10::IValue expected = module->forward(good);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_TRUE(at::allclose(ours->toTupleRef().elements()[i].toTensor(),
                             expected.toTupleRef().elements()[i].toTensor(), 1e-5, 1e-6))
        << i;
  }
}

TEST(RuntimeErrorsTest, FailureInsideALoopBodyNamesTheNestedNode) {
  StaticModule::Ptr static_module = Prepare(R"(
def forward(self, xs: List[Tensor]):
    total = xs[0]
    for i in range(1, len(xs)):
        total = torch.mm(total, xs[i])
    return total
)");
  ASSERT_NE(static_module, nullptr);
  StaticRuntime runtime(static_module);
  absl::StatusOr<c10::IValue> bad =
      runtime.Run({c10::List<at::Tensor>({at::ones({2, 2}), at::ones({2, 2}), at::ones({3, 1})})});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()),
              AllOf(HasSubstr("/0/"), HasSubstr("(aten::mm)"),
                    HasSubstr("inputs: (Float[2, 2], Float[3, 1])")));
  EXPECT_EQ(runtime.NumHeldValues(), 0u);
}

TEST(RuntimeErrorsTest, ModelThatIsNotStaticallyRunnableGivesTheChecksError) {
  absl::StatusOr<StaticModule::Ptr> module = StaticModule::FromIR(R"IR(
graph(%n : int):
  %none : NoneType = prim::Constant()
  %dtype : int = prim::Constant[value=99]()
  %sizes : int[] = prim::ListConstruct(%n)
  %y : Tensor = aten::zeros(%sizes, %dtype, %none, %none, %none)
  return (%y))IR");
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(module.status().message()),
              AllOf(HasSubstr("aten::zeros"), HasSubstr("names no")));
}

// Found by //fuzz:ir_fuzzer: the IR parser takes an unknown type name, and
// LibTorch throws when asked for such a constant's value.
TEST(RuntimeErrorsTest, ConstantOfAnUnknownTypeIsAnErrorNamingIt) {
  absl::StatusOr<StaticModule::Ptr> module = StaticModule::FromIR(R"IR(
graph(%x : Tensor):
  %three : iNt = prim::Constant[value=6]()
  return (%x, %three))IR");
  ASSERT_FALSE(module.ok());
  EXPECT_THAT(std::string(module.status().message()),
              HasSubstr("of type iNt cannot be held by the runtime"));
}

}  // namespace
}  // namespace static_runtime
