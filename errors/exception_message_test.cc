// FirstLine: the first line with text of an error message, as a load error
// reports a LibTorch loader's message that starts with a line break;
// ErrorHeadline: the interpreter's error without its tracebacks.
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

TEST(ErrorHeadline, IsTheInterpretersErrorItselfOrTheFirstLine) {
  EXPECT_EQ(ErrorHeadline("The following operation failed in the TorchScript interpreter.\n"
                          "Traceback of TorchScript (most recent call last):\n"
                          "  File \"code/__torch__.py\", line 10, in forward\n"
                          "    ops.prim.RaiseException(_0)\n\n"
                          "builtins.ValueError: expected images\n"),
            "builtins.ValueError: expected images");
  EXPECT_EQ(ErrorHeadline("The following operation failed in the TorchScript interpreter."),
            "The following operation failed in the TorchScript interpreter.");
  EXPECT_EQ(ErrorHeadline("\nshape mismatch\nbacktrace"), "shape mismatch");
}

}  // namespace
}  // namespace static_runtime
