"""The house's layout holds: every source file of the sr tool (tools/sr) has
at most 400 lines (one file per command: tools/sr/<command>_command.cc),
and ops/ keeps no more source files at its root than it holds now: the
tests over every family and the kernel list (kernels live in their op
family's package under ops/, their common ground in ops/core). golden/ holds
test data only (no source file), and nothing in runtime/ includes from it:
the verification code is verify/, which runtime's tests call."""
import os
import unittest

ROOT = os.path.join(os.environ.get("TEST_SRCDIR", ""), os.environ.get("TEST_WORKSPACE", ""))
if not os.path.exists(os.path.join(ROOT, "tools", "layout_test.py")):  # run by hand
    ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

SR_MAX_LINES = 400
# ops/ root: the table of families (kernels.{h,cc}), the coverage tool and
# the tests over every family.
OPS_ROOT_MAX_SOURCES = 11


def sources(package):
    directory = os.path.join(ROOT, package)
    return sorted(name for name in os.listdir(directory)
                  if name.endswith((".cc", ".h")) and os.path.isfile(os.path.join(directory, name)))


class LayoutTest(unittest.TestCase):
    def test_sr_files_are_short(self):
        names = sources("tools/sr")
        self.assertIn("sr_main.cc", names)
        for name in names:
            with open(os.path.join(ROOT, "tools/sr", name)) as f:
                lines = sum(1 for _ in f)
            self.assertLessEqual(lines, SR_MAX_LINES, f"tools/sr/{name} has {lines} lines")

    def test_ops_root_does_not_grow(self):
        names = sources("ops")
        self.assertIn("kernel_table_test.cc", names)
        self.assertLessEqual(len(names), OPS_ROOT_MAX_SOURCES,
                             f"ops/ holds {len(names)} source files at its root: a kernel goes "
                             "into its op family's package")


    def test_golden_is_data_only(self):
        for directory, _, names in os.walk(os.path.join(ROOT, "golden")):
            code = [n for n in names if n.endswith((".cc", ".h", ".py"))]
            self.assertEqual(code, [], f"{directory} holds code: it belongs in verify/")
        self.assertTrue(os.path.exists(os.path.join(ROOT, "golden", "models", "manifest.json")))

    def test_runtime_includes_nothing_from_golden(self):
        checked = 0
        for directory, _, names in os.walk(os.path.join(ROOT, "runtime")):
            for name in names:
                if not name.endswith((".cc", ".h")):
                    continue
                with open(os.path.join(directory, name)) as f:
                    text = f.read()
                checked += 1
                self.assertNotIn('#include "golden/', text, os.path.join(directory, name))
        self.assertGreater(checked, 20)


if __name__ == "__main__":
    unittest.main()
