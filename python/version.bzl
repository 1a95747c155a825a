"""The Python package's version: the wheel's name and static_runtime.__version__."""

VERSION = "1.0.0"

# Debian 12's CPython and the platform the extension is built for.
WHEEL_TAG = "cp311-cp311-linux_x86_64"
