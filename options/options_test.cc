// Options: every boolean option is found by its name, shows in
// DescribeOptions (the model cache's key) with its value, and invalid
// combinations are rejected with a message naming the option.
#include "options/options.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace static_runtime {
namespace {

using ::testing::HasSubstr;

TEST(OptionsTest, EveryBoolOptionIsFoundByItsName) {
  for (const BoolOption& option : BoolOptions()) {
    const BoolOption* found = FindBoolOption(option.name);
    ASSERT_NE(found, nullptr) << option.name;
    EXPECT_EQ(found->member, option.member) << option.name;
  }
  EXPECT_EQ(FindBoolOption("no_such_option"), nullptr);
}

TEST(OptionsTest, DescriptionChangesWithEveryOption) {
  const Options defaults;
  const std::string default_description = DescribeOptions(defaults);
  for (const BoolOption& option : BoolOptions()) {
    Options flipped;
    flipped.*option.member = !(defaults.*option.member);
    const std::string description = DescribeOptions(flipped);
    EXPECT_NE(description, default_description) << option.name;
    EXPECT_THAT(description, HasSubstr(absl::StrCat(option.name, "=", flipped.*option.member)));
  }
  Options tensorexpr;
  tensorexpr.enable_tensorexpr_fusion = true;
  EXPECT_NE(DescribeOptions(tensorexpr), default_description);
  Options fewer_plans;
  fewer_plans.shape_plans_per_kernel = 3;
  EXPECT_THAT(DescribeOptions(fewer_plans), HasSubstr("shape_plans_per_kernel=3"));
}

TEST(OptionsTest, DefaultsAreValid) { EXPECT_TRUE(ValidateOptions(Options()).ok()); }

TEST(OptionsTest, InvalidCombinationsNameTheOption) {
  Options memory_without_out;
  memory_without_out.enable_out_variant = false;
  EXPECT_THAT(std::string(ValidateOptions(memory_without_out).message()),
              HasSubstr("optimize_memory=true needs enable_out_variant=true"));

  Options outputs_without_out;
  outputs_without_out.enable_out_variant = false;
  outputs_without_out.optimize_memory = false;
  outputs_without_out.manage_output_tensors = true;
  EXPECT_THAT(std::string(ValidateOptions(outputs_without_out).message()),
              HasSubstr("manage_output_tensors=true needs enable_out_variant"));

  Options outputs_without_memory;
  outputs_without_memory.optimize_memory = false;
  outputs_without_memory.manage_output_tensors = true;
  EXPECT_THAT(std::string(ValidateOptions(outputs_without_memory).message()),
              HasSubstr("manage_output_tensors=true needs optimize_memory"));

  Options fusion_without_hook;
  fusion_without_hook.enable_tensorexpr_fusion = true;
  EXPECT_THAT(std::string(ValidateOptions(fusion_without_hook).message()),
              HasSubstr("enable_tensorexpr_fusion=true needs a fusion_hook"));

  Options no_plans;
  no_plans.shape_plans_per_kernel = 0;
  EXPECT_THAT(std::string(ValidateOptions(no_plans).message()),
              HasSubstr("shape_plans_per_kernel must be at least 1"));
}

}  // namespace
}  // namespace static_runtime
