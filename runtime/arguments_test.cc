#include "runtime/arguments.h"

#include "ATen/ATen.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "torch/csrc/jit/frontend/function_schema_parser.h"

namespace static_runtime {
namespace {

const c10::FunctionSchema kSchema = torch::jit::parseSchema(
    "forward(Tensor x, int n=3, float? scale=None, int[] dims=[0, 1]) -> Tensor");

TEST(ArgumentsTest, PositionalKeywordAndDefaults) {
  const at::Tensor x = at::ones({1});
  absl::StatusOr<std::vector<c10::IValue>> bound = BindArguments(kSchema, {x}, {{"scale", 0.5}});
  ASSERT_TRUE(bound.ok()) << bound.status();
  ASSERT_EQ(bound->size(), 4u);
  EXPECT_TRUE((*bound)[0].toTensor().is_same(x));
  EXPECT_EQ((*bound)[1].toInt(), 3);
  EXPECT_EQ((*bound)[2].toDouble(), 0.5);
  EXPECT_EQ((*bound)[3].toIntVector(), (std::vector<int64_t>{0, 1}));
}

TEST(ArgumentsTest, AllByKeyword) {
  absl::StatusOr<std::vector<c10::IValue>> bound = BindArguments(
      kSchema, {}, {{"x", at::ones({1})}, {"n", 7}, {"dims", c10::List<int64_t>({2})}});
  ASSERT_TRUE(bound.ok()) << bound.status();
  EXPECT_EQ((*bound)[1].toInt(), 7);
  EXPECT_TRUE((*bound)[2].isNone());
}

TEST(ArgumentsTest, LooselyTypedContainersAreRetyped) {
  const c10::FunctionSchema schema = torch::jit::parseSchema(
      "forward(Dict(str, Tensor) features, Tensor[] xs, (int, Tensor) pair) -> Tensor");
  c10::impl::GenericDict features(c10::AnyType::get(), c10::AnyType::get());
  features.insert("ids", at::ones({2}));
  c10::impl::GenericList xs(c10::AnyType::get());
  xs.push_back(at::ones({1}));
  auto bound = BindArguments(
      schema, {features, xs, c10::ivalue::Tuple::create({int64_t{1}, at::ones({1})})}, {});
  ASSERT_TRUE(bound.ok()) << bound.status();
  EXPECT_TRUE((*bound)[0].type()->isSubtypeOf(*schema.arguments()[0].type()));
  EXPECT_TRUE((*bound)[1].type()->isSubtypeOf(*schema.arguments()[1].type()));

  c10::impl::GenericDict wrong(c10::AnyType::get(), c10::AnyType::get());
  wrong.insert("ids", int64_t{3});
  auto rejected = BindArguments(
      schema, {wrong, xs, c10::ivalue::Tuple::create({int64_t{1}, at::ones({1})})}, {});
  EXPECT_EQ(rejected.status().message(),
            "forward() argument 0 ('features'): expected Dict[str, Tensor], got Dict[Any, Any]");
}

TEST(ArgumentsTest, TypedContainersPassAsTheyAre) {
  const c10::FunctionSchema schema = torch::jit::parseSchema(
      "forward(Dict(str, Tensor) features, Tensor[] xs, (int, Tensor[]) pair, int[]? dims) -> "
      "Tensor");
  c10::Dict<std::string, at::Tensor> features;
  features.insert("ids", at::ones({2}));
  c10::List<at::Tensor> xs({at::ones({1})});
  const std::vector<c10::IValue> args = {features, xs, c10::ivalue::Tuple::create({int64_t{1}, xs}),
                                         c10::List<int64_t>({1, 2})};
  auto bound = BindArguments(schema, args, {});
  ASSERT_TRUE(bound.ok()) << bound.status();
  for (size_t i = 0; i < args.size(); ++i) {
    EXPECT_EQ((*bound)[i].internalToPointer(), args[i].internalToPointer()) << "argument " << i;
  }
}

// Every value binds to every type it is a subtype of, and to no other (these
// values' containers have exact element types: none needs retyping).
TEST(ArgumentsTest, BindsExactlyTheSubtypes) {
  const std::vector<std::string> types = {"Tensor",
                                          "int",
                                          "float",
                                          "bool",
                                          "str",
                                          "Tensor?",
                                          "int?",
                                          "Tensor[]",
                                          "int[]",
                                          "float[]",
                                          "Dict(str, Tensor)",
                                          "Dict(int, Tensor)",
                                          "Dict(str, int)",
                                          "(int, Tensor)",
                                          "(int, int)",
                                          "(int, Tensor)?",
                                          "Any",
                                          "Scalar",
                                          "Tensor[]?",
                                          "str[]"};
  c10::Dict<std::string, at::Tensor> str_tensors;
  str_tensors.insert("a", at::ones({1}));
  c10::Dict<int64_t, at::Tensor> int_tensors;
  int_tensors.insert(1, at::ones({1}));
  const std::vector<c10::IValue> values = {
      at::ones({2}),
      int64_t{3},
      2.5,
      true,
      std::string("s"),
      c10::IValue(),
      c10::List<at::Tensor>({at::ones({1})}),
      c10::List<int64_t>({1}),
      c10::List<double>({1.0}),
      c10::List<std::string>({"a"}),
      str_tensors,
      int_tensors,
      c10::ivalue::Tuple::create({int64_t{1}, at::ones({1})}),
      c10::ivalue::Tuple::create({int64_t{1}, int64_t{2}}),
  };
  for (const std::string& type : types) {
    const c10::FunctionSchema schema =
        torch::jit::parseSchema(absl::StrCat("forward(", type, " x) -> Tensor"));
    const c10::TypePtr& expected = schema.arguments()[0].type();
    for (const c10::IValue& value : values) {
      auto bound = BindArguments(schema, {value}, {});
      EXPECT_EQ(bound.ok(), value.type()->isSubtypeOf(*expected))
          << type << " <- " << value.type()->annotation_str() << ": " << bound.status();
    }
  }
}

// prim::Uninitialized's value (a variable only a raising branch leaves
// unset) binds to any argument, as the interpreter passes it into a call.
TEST(ArgumentsTest, AnUninitializedValueBindsToAnyArgument) {
  const c10::FunctionSchema schema =
      torch::jit::parseSchema("forward(Tensor x, int n, Dict(str, Tensor) d) -> Tensor");
  c10::IValue uninitialized = c10::IValue::uninitialized();
  ASSERT_EQ(uninitialized.tagKind(), "Uninitialized");
  c10::impl::GenericDict dict(c10::StringType::get(), c10::TensorType::get());
  EXPECT_TRUE(BindArguments(schema, {uninitialized, int64_t{1}, dict}, {}).ok());
  EXPECT_TRUE(BindArguments(schema, {at::ones({1}), uninitialized, dict}, {}).ok());
  EXPECT_TRUE(BindArguments(schema, {at::ones({1}), int64_t{1}, uninitialized}, {}).ok());
  EXPECT_FALSE(BindArguments(schema, {c10::IValue(), int64_t{1}, dict}, {}).ok());
}

TEST(ArgumentsTest, Errors) {
  auto message = [](std::vector<c10::IValue> args, const KwargMap& kwargs) {
    auto bound = BindArguments(kSchema, std::move(args), kwargs);
    EXPECT_EQ(bound.status().code(), absl::StatusCode::kInvalidArgument);
    return std::string(bound.status().message());
  };
  EXPECT_EQ(message({}, {}), "forward() missing argument 0 ('x') of type Tensor");
  EXPECT_EQ(message({at::ones({1}), 1.5}, {}),
            "forward() argument 1 ('n'): expected int, got float");
  EXPECT_EQ(message({at::ones({1})}, {{"dims", c10::List<double>({1.0})}}),
            "forward() argument 3 ('dims'): expected List[int], got List[float]");
  EXPECT_EQ(message({at::Tensor()}, {}),
            "forward() argument 0 ('x'): expected Tensor, got undefined Tensor");
}

}  // namespace
}  // namespace static_runtime
