"""The target through which an op family's package gives its kernels."""

def family_kernels(parts):
    """Declares :kernels, the family's kernels.{h,cc}.

    Its one function adds the kernels of every part (a kernel file's
    cc_library) to a registry; the table of families in //ops:kernels calls
    it.

    Args:
      parts: the family's kernel libraries, whose functions kernels.cc calls.
    """
    native.cc_library(
        name = "kernels",
        srcs = ["kernels.cc"],
        hdrs = ["kernels.h"],
        visibility = ["//ops:__pkg__"],
        deps = parts + ["//ops/core:registry"],
    )
