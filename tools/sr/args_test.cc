#include "tools/sr/args.h"

#include <stdexcept>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace static_runtime {
namespace sr {
namespace {

const std::vector<FlagSpec> kSpecs = {
    {"input_spec", FlagKind::kString, "", "inputs"},
    {"iters", FlagKind::kInt, "100", "iterations"},
    {"optimize_memory", FlagKind::kBool, "true", "plan memory"},
};

TEST(ArgsTest, CommandPositionalsAndFlags) {
  auto args = Args::Parse(
      {"sr", "bench", "model.pt", "--input-spec=f32[2]", "--iters=5", "--optimize_memory=false"},
      kSpecs);
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->command(), "bench");
  EXPECT_EQ(args->positional(), std::vector<std::string>{"model.pt"});
  EXPECT_EQ(args->String("input_spec"), "f32[2]");
  EXPECT_EQ(args->Int("iters"), 5);
  EXPECT_FALSE(args->Bool("optimize_memory"));
  EXPECT_TRUE(args->Given("iters"));
}

TEST(ArgsTest, DefaultsAndBareBooleans) {
  auto args = Args::Parse({"sr", "bench", "--optimize-memory"}, kSpecs);
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->Int("iters"), 100);
  EXPECT_TRUE(args->Bool("optimize_memory"));
  EXPECT_FALSE(args->Given("iters"));
}

TEST(ArgsTest, Errors) {
  auto message = [](std::vector<std::string> argv) {
    auto args = Args::Parse(argv, kSpecs);
    EXPECT_FALSE(args.ok());
    return std::string(args.status().message());
  };
  EXPECT_EQ(message({"sr", "bench", "--itres=3"}), "unknown flag --itres (see sr bench --help)");
  EXPECT_EQ(message({"sr", "bench", "--iters=many"}), "--iters needs an integer value (--iters=N)");
  EXPECT_EQ(message({"sr", "bench", "--iters"}), "--iters needs an integer value (--iters=N)");
  EXPECT_EQ(message({"sr", "bench", "--input-spec"}),
            "--input_spec needs a value (--input_spec=...)");
  EXPECT_EQ(message({"sr", "bench", "--optimize-memory=maybe"}),
            "--optimize_memory takes true or false, not 'maybe'");
}

TEST(ArgsTest, AnotherCommandsFlagIsNamed) {
  auto args = Args::Parse({"sr", "gate", "--iters=5"}, {}, {{"iters", "bench, profile"}});
  ASSERT_FALSE(args.ok());
  EXPECT_EQ(args.status().message(),
            "--iters is a flag of bench, profile, not of gate (see sr gate --help)");
}

TEST(ArgsTest, ReadingAnUndeclaredFlagIsAnErrorOfSr) {
  auto args = Args::Parse({"sr", "gate"}, kSpecs);
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_TRUE(args->Declares("iters"));
  EXPECT_FALSE(args->Declares("seeds"));
  EXPECT_THROW(args->Int("seeds"), std::logic_error);
}

TEST(ArgsTest, HelpListsEveryFlag) {
  const std::string help = FlagHelp(kSpecs);
  EXPECT_THAT(help, testing::HasSubstr("--input-spec=VALUE"));
  EXPECT_THAT(help, testing::HasSubstr("--iters=N"));
  EXPECT_THAT(help, testing::HasSubstr("--optimize-memory[=true|false]"));
  EXPECT_THAT(help, testing::HasSubstr("(default 100)"));
}

}  // namespace
}  // namespace sr
}  // namespace static_runtime
