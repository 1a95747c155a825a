// testdata/inputs.pt was written by Python (LibTorch 1.13):
//   torch.save((torch.arange(6, dtype=torch.float32).reshape(2, 3),
//               [torch.tensor([1, 2]), torch.tensor([True])],
//               {'dense': torch.ones(2), 'extra': torch.zeros(1)}, 3, 0.5),
//              'inputs.pt')
//   torch.save(torch.zeros(2), 'single_tensor.pt')
//   torch.save({'only': torch.ones(1)}, 'single_key_dict.pt')
#include "tools/sr/inputs_file.h"

#include <fstream>

#include "ATen/ATen.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

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
  auto single_key = LoadInputsFile("tools/sr/testdata/single_key_dict.pt");
  EXPECT_THAT(std::string(single_key.status().message()),
              testing::HasSubstr("a dict with a single entry"));
}

}  // namespace
}  // namespace sr
}  // namespace static_runtime
