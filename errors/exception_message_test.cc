// FirstLine: the first line with text of an error message, as a load error
// reports a LibTorch loader's message that starts with a line break.
#include "errors/exception_message.h"

#include "gtest/gtest.h"

namespace static_runtime {
namespace {

TEST(FirstLine, IsTheFirstLineWithText) {
  EXPECT_EQ(FirstLine("bad magic\nbacktrace"), "bad magic");
  EXPECT_EQ(FirstLine("\nUnknown builtin op: torchvision::nms.\nCould not find"),
            "Unknown builtin op: torchvision::nms.");
  EXPECT_EQ(FirstLine(" \n  indented\n"), "indented");
  EXPECT_EQ(FirstLine("one line"), "one line");
  EXPECT_EQ(FirstLine("\n\n"), "");
}

}  // namespace
}  // namespace static_runtime
