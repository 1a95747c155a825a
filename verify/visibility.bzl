"""Who may use the verification harness's internal libraries (verify/ and
golden/models/). Its public part (reference, option_sets, run_check:
comparing a model's outputs with the JIT's) is public; the model corpus is
for the project's own tests and tools."""

HARNESS_USERS = [
    "//load:__pkg__",
    "//fuzz:__subpackages__",
    "//golden:__subpackages__",
    "//verify:__pkg__",
    "//ops:__subpackages__",
    "//passes:__subpackages__",
    "//runtime:__subpackages__",
]
