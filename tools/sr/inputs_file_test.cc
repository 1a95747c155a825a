// testdata/inputs.pt was written by Python (LibTorch 1.13):
//   torch.save((torch.arange(6, dtype=torch.float32).reshape(2, 3),
//               [torch.tensor([1, 2]), torch.tensor([True])],
//               {'dense': torch.ones(2), 'extra': torch.zeros(1)}, 3, 0.5),
//              'inputs.pt')
//   torch.save(torch.zeros(2), 'single_tensor.pt')
//   torch.save({'only': torch.ones(1)}, 'single_key_dict.pt')
//   torch.save([torch.arange(3.)], 'single_item_list.pt')
//   torch.save(({'ids': [torch.tensor([4, 5])]}, [[torch.ones(1)]]), 'nested_singles.pt')
// Python pickles a one-item list with APPEND and a one-entry dict with
// SETITEM, which LibTorch 1.13's own torch::pickle_load cannot read.
#include "tools/sr/inputs_file.h"

#include <fstream>
#include <iterator>
#include <string>

#include "ATen/ATen.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "torch/csrc/jit/frontend/function_schema_parser.h"

namespace static_runtime {
namespace sr {
namespace {

TEST(InputsFileTest, TupleOfNestedValues) {
  auto inputs = LoadInputsFile("tools/sr/testdata/inputs.pt");
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  ASSERT_EQ(inputs->size(), 5u);
  EXPECT_TRUE((*inputs)[0].toTensor().equal(at::arange(6, at::kFloat).reshape({2, 3})));
  const auto list = (*inputs)[1].toList();
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list.get(0).toTensor().scalar_type(), at::kLong);
  EXPECT_EQ(list.get(1).toTensor().scalar_type(), at::kBool);
  const auto dict = (*inputs)[2].toGenericDict();
  EXPECT_TRUE(dict.at("dense").toTensor().equal(at::ones({2})));
  EXPECT_TRUE(dict.at("extra").toTensor().equal(at::zeros({1})));
  EXPECT_EQ((*inputs)[3].toInt(), 3);
  EXPECT_EQ((*inputs)[4].toDouble(), 0.5);
}

TEST(InputsFileTest, SingleValueIsTheOnlyArgument) {
  auto inputs = LoadInputsFile("tools/sr/testdata/single_tensor.pt");
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  ASSERT_EQ(inputs->size(), 1u);
  EXPECT_TRUE((*inputs)[0].toTensor().equal(at::zeros({2})));
}

TEST(InputsFileTest, Errors) {
  auto missing = LoadInputsFile("tools/sr/testdata/nope.pt");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  const std::string garbage = ::testing::TempDir() + "/garbage.pt";
  std::ofstream(garbage) << "not a pickle";
  auto bad = LoadInputsFile(garbage);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()),
              testing::HasSubstr("not a file written by torch.save"));
  // A damaged archive: its zip directory cut off.
  std::ifstream original("tools/sr/testdata/inputs.pt", std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(original)),
                          std::istreambuf_iterator<char>());
  const std::string truncated = ::testing::TempDir() + "/truncated.pt";
  std::ofstream(truncated, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  auto cut = LoadInputsFile(truncated);
  EXPECT_EQ(cut.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(cut.status().message()),
              testing::HasSubstr("not a file written by torch.save"));
}

// A dict saved as the inputs of a method whose first argument is no dict
// holds keyword arguments.
TEST(InputsFileTest, ADictOfKeywordArguments) {
  const c10::FunctionSchema schema = torch::jit::parseSchema(
      "forward(Tensor self, Tensor x, Tensor mask, float scale=2.0) -> Tensor");
  const at::Tensor x = at::ones({2}), mask = at::zeros({2});
  c10::Dict<std::string, at::Tensor> kwargs;
  kwargs.insert("mask", mask);
  kwargs.insert("x", x);
  auto arguments = ArgumentsFromInputs({kwargs}, schema);
  ASSERT_TRUE(arguments.ok()) << arguments.status();
  ASSERT_EQ(arguments->size(), 3u);
  EXPECT_TRUE((*arguments)[0].toTensor().is_same(x));
  EXPECT_TRUE((*arguments)[1].toTensor().is_same(mask));
  EXPECT_EQ((*arguments)[2].toDouble(), 2.0);

  kwargs.insert("masks", mask);
  auto unknown = ArgumentsFromInputs({kwargs}, schema);
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(unknown.status().message()),
              testing::AllOf(testing::HasSubstr("keyword argument 'masks'"),
                             testing::HasSubstr("(arguments: x, mask, scale)")));
  c10::Dict<std::string, at::Tensor> partial;
  partial.insert("x", x);
  auto missing = ArgumentsFromInputs({partial}, schema);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(missing.status().message()),
              testing::HasSubstr("missing argument 1 ('mask') of type Tensor"));
  c10::impl::GenericDict wrong_type(c10::StringType::get(), c10::AnyType::get());
  wrong_type.insert("x", int64_t{3});
  wrong_type.insert("mask", mask);
  auto typed = ArgumentsFromInputs({wrong_type}, schema);
  EXPECT_EQ(typed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(typed.status().message()),
              testing::AllOf(testing::HasSubstr("argument 0 ('x')"),
                             testing::HasSubstr("expected Tensor")));
}

TEST(InputsFileTest, ADictForADictArgumentAndSeveralValuesStayAsTheyAre) {
  c10::Dict<std::string, at::Tensor> features;
  features.insert("x", at::ones({2}));
  const c10::FunctionSchema takes_dict =
      torch::jit::parseSchema("forward(Tensor self, Dict(str, Tensor) features) -> Tensor");
  auto same = ArgumentsFromInputs({features}, takes_dict);
  ASSERT_TRUE(same.ok()) << same.status();
  ASSERT_EQ(same->size(), 1u);
  EXPECT_TRUE((*same)[0].isGenericDict());
  const c10::FunctionSchema takes_optional_dict =
      torch::jit::parseSchema("forward(Tensor self, Dict(str, Tensor)? features=None) -> Tensor");
  auto optional = ArgumentsFromInputs({features}, takes_optional_dict);
  ASSERT_TRUE(optional.ok()) << optional.status();
  ASSERT_EQ(optional->size(), 1u);
  EXPECT_TRUE((*optional)[0].isGenericDict());
  const c10::FunctionSchema takes_two =
      torch::jit::parseSchema("forward(Tensor self, Tensor x, Tensor mask) -> Tensor");
  auto positional = ArgumentsFromInputs({features, at::zeros({1})}, takes_two);
  ASSERT_TRUE(positional.ok()) << positional.status();
  EXPECT_EQ(positional->size(), 2u);
  EXPECT_TRUE((*positional)[0].isGenericDict());
}

TEST(InputsFileTest, OneItemListsAndOneEntryDicts) {
  auto single_key = LoadInputsFile("tools/sr/testdata/single_key_dict.pt");
  ASSERT_TRUE(single_key.ok()) << single_key.status();
  ASSERT_EQ(single_key->size(), 1u);
  const auto dict = (*single_key)[0].toGenericDict();
  ASSERT_EQ(dict.size(), 1u);
  EXPECT_TRUE(dict.at("only").toTensor().equal(at::ones({1})));

  auto single_item = LoadInputsFile("tools/sr/testdata/single_item_list.pt");
  ASSERT_TRUE(single_item.ok()) << single_item.status();
  ASSERT_EQ(single_item->size(), 1u);
  EXPECT_TRUE((*single_item)[0].toTensor().equal(at::arange(3, at::kFloat)));

  auto nested = LoadInputsFile("tools/sr/testdata/nested_singles.pt");
  ASSERT_TRUE(nested.ok()) << nested.status();
  ASSERT_EQ(nested->size(), 2u);
  const auto ids = (*nested)[0].toGenericDict().at("ids").toList();
  ASSERT_EQ(ids.size(), 1u);
  EXPECT_TRUE(ids.get(0).toTensor().equal(at::tensor({4, 5}, at::kLong)));
  const auto outer = (*nested)[1].toList();
  ASSERT_EQ(outer.size(), 1u);
  const auto inner = outer.get(0).toList();
  ASSERT_EQ(inner.size(), 1u);
  EXPECT_TRUE(inner.get(0).toTensor().equal(at::ones({1})));
}

}  // namespace
}  // namespace sr
}  // namespace static_runtime
