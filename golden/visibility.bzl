"""Who may use the verification harness's libraries (golden/ and golden/models/)."""

HARNESS_USERS = [
    "//load:__pkg__",
    "//fuzz:__subpackages__",
    "//golden:__subpackages__",
    "//ops:__subpackages__",
    "//passes:__subpackages__",
    "//runtime:__subpackages__",
    "//tools:__subpackages__",
]
