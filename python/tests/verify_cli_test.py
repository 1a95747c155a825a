"""`python3 -m static_runtime verify` and `sr verify` give one verdict: the
same model and input files give the same JSON report from both (the Python
CLI calls the C++ comparison sr verify runs), on a model that passes and on
one whose inputs the JIT itself rejects; inputs that do not fit forward fail
in both."""
import contextlib
import io
import json
import os
import subprocess
import tempfile
import unittest

import torch

from static_runtime import __main__ as command_line

SR = os.path.join(os.environ.get("TEST_SRCDIR", ""), os.environ.get("TEST_WORKSPACE", ""),
                  "tools", "sr", "sr")


class Residual(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(4, 4)

    def forward(self, x):
        assert x.size(0) < 4, "at most 3 rows"
        return torch.relu(self.linear(x)) + x, x.sum(1)


class VerifyCliTest(unittest.TestCase):
    def verdicts(self, directory, model, inputs):
        """(exit status, JSON report) of the Python CLI, then of sr verify."""
        python_json = os.path.join(directory, "python.json")
        with contextlib.redirect_stdout(io.StringIO()) as out:
            python_code = command_line.main(["verify", model, "--inputs", ",".join(inputs),
                                             "--json", python_json])
        sr_json = os.path.join(directory, "sr.json")
        sr = subprocess.run([SR, "verify", model, "--inputs=" + ",".join(inputs),
                             "--json=" + sr_json], capture_output=True, text=True)
        with open(python_json) as f, open(sr_json) as g:
            return (python_code, json.load(f), out.getvalue()), (sr.returncode, json.load(g),
                                                                 sr.stdout + sr.stderr)

    def test_one_verdict(self):
        torch.manual_seed(0)
        with tempfile.TemporaryDirectory() as directory:
            model = os.path.join(directory, "model.pt")
            torch.jit.save(torch.jit.script(Residual().eval()), model)
            good = [os.path.join(directory, name) for name in ("a.pt", "b.pt")]
            torch.save((torch.randn(2, 4),), good[0])
            torch.save((torch.randn(3, 4),), good[1])
            too_many_rows = os.path.join(directory, "c.pt")
            torch.save((torch.randn(5, 4),), too_many_rows)
            for inputs, passed in ((good, True), (good + [too_many_rows], False)):
                with self.subTest(inputs=[os.path.basename(i) for i in inputs]):
                    (python_code, python_report, python_out), (sr_code, sr_report, sr_out) = \
                        self.verdicts(directory, model, inputs)
                    self.assertEqual(python_report, sr_report, f"{python_out}\n{sr_out}")
                    self.assertEqual(python_report["passed"], passed, python_out)
                    self.assertEqual(python_code, 0 if passed else 1, python_out)
                    self.assertEqual(sr_code, python_code, sr_out)
                    self.assertGreater(python_report["runs"], 0)
                    if not passed:
                        self.assertIn("at most 3 rows", python_out)

    def test_inputs_that_do_not_fit_fail_in_both(self):
        with tempfile.TemporaryDirectory() as directory:
            model = os.path.join(directory, "model.pt")
            torch.jit.save(torch.jit.script(Residual().eval()), model)
            words = os.path.join(directory, "words.pt")
            torch.save(("not a tensor",), words)
            with contextlib.redirect_stderr(io.StringIO()) as err:
                code = command_line.main(["verify", model, "--inputs", words])
            self.assertEqual(code, 1)
            self.assertIn(f"input set '{words}'[0]", err.getvalue())
            sr = subprocess.run([SR, "verify", model, "--inputs=" + words], capture_output=True,
                                text=True)
            self.assertEqual(sr.returncode, 1, sr.stdout + sr.stderr)
            with contextlib.redirect_stderr(io.StringIO()) as err:
                code = command_line.main(["verify", model, "--inputs", words, "--rounds", "0"])
            self.assertEqual(code, 2)
            self.assertIn("--rounds must be >= 1", err.getvalue())


if __name__ == "__main__":
    unittest.main()
