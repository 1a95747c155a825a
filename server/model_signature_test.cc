#include "server/model_signature.h"

#include "ATen/ATen.h"
#include "ATen/core/Dict.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "torch/csrc/jit/frontend/function_schema_parser.h"

namespace static_runtime {
namespace server {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

ModelSignature Signature(const char* schema, std::vector<DeclaredTensor> declared = {}) {
  return ModelSignature::Make(torch::jit::parseSchema(schema), declared).value();
}

constexpr char kAds[] =
    "forward(Tensor dense, Dict(str, Tensor) sparse, int scale, float? weight=None, "
    "int[] ids=[4, 5], Tensor[]? extra=None) -> (Tensor, Dict(str, Tensor))";

TEST(ModelSignature, BuildsDictsListsAndScalars) {
  const ModelSignature signature = Signature(kAds);
  const at::Tensor dense = at::randn({2, 3});
  const at::Tensor user = at::arange(4);
  const at::Tensor item = at::arange(2);
  std::vector<c10::IValue> arguments =
      signature
          .Arguments({{"dense", dense},
                      {"sparse.user", user},
                      {"sparse.item.id", item},  // keys of tensors may hold dots
                      {"scale", at::tensor({3})},
                      {"extra.1", at::ones({1})},
                      {"extra.0", at::zeros({1})}})
          .value();
  ASSERT_EQ(arguments.size(), 6u);
  EXPECT_TRUE(arguments[0].toTensor().is_same(dense));
  const c10::Dict<c10::IValue, c10::IValue> sparse = arguments[1].toGenericDict();
  EXPECT_EQ(sparse.size(), 2u);
  EXPECT_TRUE(sparse.at("user").toTensor().is_same(user));
  EXPECT_TRUE(sparse.at("item.id").toTensor().is_same(item));
  EXPECT_EQ(arguments[2].toInt(), 3);
  EXPECT_TRUE(arguments[3].isNone());
  EXPECT_EQ(arguments[4].toIntVector(), (std::vector<int64_t>{4, 5}));  // the default
  EXPECT_EQ(arguments[5].toTensorVector()[0].item<float>(), 0.0f);
  EXPECT_EQ(arguments[5].toTensorVector()[1].item<float>(), 1.0f);

  std::vector<c10::IValue> given = signature
                                       .Arguments({{"dense", dense},
                                                   {"scale", at::tensor({2})},
                                                   {"weight", at::tensor({0.5})},
                                                   {"ids", at::tensor({7, 8, 9})}})
                                       .value();
  EXPECT_EQ(given[1].toGenericDict().size(), 0u);  // an empty dict: its default
  EXPECT_DOUBLE_EQ(given[3].toDouble(), 0.5);
  EXPECT_EQ(given[4].toIntVector(), (std::vector<int64_t>{7, 8, 9}));
}

TEST(ModelSignature, ErrorsNameTheInput) {
  const ModelSignature signature = Signature(kAds);
  const at::Tensor dense = at::randn({2, 3});
  const at::Tensor scale = at::tensor({3});
  const std::pair<std::vector<NamedTensor>, const char*> cases[] = {
      {{{"scale", scale}}, "missing input 'dense' (Tensor)"},
      {{{"dense", dense}, {"scale", scale}, {"nope", dense}}, "unknown input 'nope'"},
      {{{"dense", dense}, {"scale", at::tensor({1.5})}},
       "input 'scale': the model takes int, not Double"},
      {{{"dense", dense}, {"scale", at::tensor({1, 2})}}, "one int, but got 2 elements"},
      {{{"dense", dense}, {"dense", dense}, {"scale", scale}}, "input 'dense' is given twice"},
      {{{"dense", dense}, {"scale", scale}, {"extra.1", dense}}, "numbered extra.0, extra.1"},
      {{{"dense", dense}, {"scale", scale}, {"ids", at::ones({2, 2}, at::kLong)}}, "1-D"},
  };
  for (const auto& [inputs, message] : cases) {
    absl::StatusOr<std::vector<c10::IValue>> arguments = signature.Arguments(inputs);
    ASSERT_FALSE(arguments.ok()) << message;
    EXPECT_THAT(arguments.status().message(), HasSubstr(message));
  }
}

TEST(ModelSignature, DeclaredInputsAreChecked) {
  const ModelSignature signature =
      Signature("forward(Tensor x) -> Tensor", {{"x", "FP32", {-1, 4}}});
  EXPECT_TRUE(signature.Arguments({{"x", at::ones({3, 4})}}).ok());
  EXPECT_THAT(signature.Arguments({{"x", at::ones({3, 5})}}).status().message(),
              HasSubstr("input 'x': shape [3,5], but the model takes [-1,4]"));
  EXPECT_THAT(signature.Arguments({{"x", at::ones({3, 4}, at::kDouble)}}).status().message(),
              HasSubstr("input 'x': datatype FP64, but the model takes FP32"));
  ASSERT_EQ(signature.inputs().size(), 1u);
  EXPECT_THAT(signature.inputs()[0].shape, ElementsAre(-1, 4));
}

TEST(ModelSignature, MetadataListsWhatTheSchemaFixes) {
  const ModelSignature signature = Signature(kAds);
  std::vector<std::string> inputs;
  for (const TensorMetadata& input : signature.inputs()) {
    inputs.push_back(input.name + ":" + input.datatype);
  }
  EXPECT_THAT(inputs, ElementsAre("dense:FP32", "scale:INT64", "weight:FP64", "ids:INT64"));
  ASSERT_EQ(signature.outputs().size(), 1u);
  EXPECT_EQ(signature.outputs()[0].name, "output.0");
  EXPECT_FALSE(ModelSignature::Make(torch::jit::parseSchema("forward(str s) -> Tensor"), {}).ok());
}

TEST(ModelSignature, InputsAreTheInverseOfArguments) {
  const c10::FunctionSchema schema = torch::jit::parseSchema(kAds);
  const ModelSignature signature = ModelSignature::Make(schema, {}).value();
  c10::Dict<std::string, at::Tensor> sparse;
  sparse.insert("user", at::arange(3));
  const std::vector<c10::IValue> arguments = {at::randn({2, 3}), sparse, int64_t{4}, 0.5,
                                              std::vector<int64_t>{1, 2}};
  std::vector<NamedTensor> inputs = ModelSignature::Inputs(schema, arguments).value();
  std::vector<std::string> names;
  for (const NamedTensor& input : inputs) names.push_back(input.name);
  EXPECT_THAT(names, ElementsAre("dense", "sparse.user", "scale", "weight", "ids.0", "ids.1"));
  std::vector<c10::IValue> back = signature.Arguments(inputs).value();
  EXPECT_TRUE(back[0].toTensor().is_same(arguments[0].toTensor()));
  EXPECT_TRUE(back[1].toGenericDict().at("user").toTensor().is_same(sparse.at("user")));
  EXPECT_EQ(back[2].toInt(), 4);
  EXPECT_DOUBLE_EQ(back[3].toDouble(), 0.5);
  EXPECT_EQ(back[4].toIntVector(), (std::vector<int64_t>{1, 2}));
}

TEST(ModelSignature, OutputsAreFlattenedWithPathNames) {
  c10::Dict<std::string, at::Tensor> pooled;
  pooled.insert("user", at::ones({1}));
  const c10::IValue result =
      c10::ivalue::Tuple::create({at::zeros({2}), pooled, c10::IValue(), c10::IValue(int64_t{7}),
                                  c10::List<at::Tensor>({at::ones({3})})});
  std::vector<NamedTensor> outputs = ModelSignature::Outputs(result).value();
  std::vector<std::string> names;
  for (const NamedTensor& output : outputs) names.push_back(output.name);
  EXPECT_THAT(names, ElementsAre("output.0", "output.1.user", "output.3", "output.4.0"));
  EXPECT_EQ(outputs[2].tensor.item<int64_t>(), 7);
  EXPECT_EQ(outputs[2].tensor.dim(), 0);
  EXPECT_THAT(ModelSignature::Outputs(c10::IValue("text")).status().message(),
              HasSubstr("output 'output' is a String"));
}

}  // namespace
}  // namespace server
}  // namespace static_runtime
