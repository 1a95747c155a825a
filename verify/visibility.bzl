"""Who may use the verification harness's internal libraries (verify/). Its
public part (reference, option_sets, run_check, verify_model: comparing a
model's outputs with the JIT's) is public; the model corpus and the golden
helpers are for the project's own tests and tools."""

HARNESS_USERS = [
    "//load:__pkg__",
    "//fuzz:__subpackages__",
    "//ops:__subpackages__",
    "//passes:__subpackages__",
    "//runtime:__subpackages__",
]
