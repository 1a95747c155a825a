"""Run by wheel_test.sh with the venv the wheel was installed into, from a
temporary directory: the installed package (not the source tree) runs a
torchvision model, a scripted function, a dict-input model, runAsync with
forks, benchmark and benchmark_individual_ops, patch_torch() under an
unchanged caller, and `python3 -m static_runtime verify`; outputs equal the
JIT's (within 1e-4 where pre-packed oneDNN kernels run)."""
import contextlib
import io
import os
import subprocess
import sys
import tempfile
import unittest
from typing import Dict

import torch
import torchvision
from torch import Tensor, nn

import static_runtime

VENV = sys.argv.pop(1)


class DictModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(8, 4)

    def forward(self, features: Dict[str, Tensor]) -> Tensor:
        return torch.relu(self.linear(features["dense"] + features["extra"]))


def square(x: Tensor) -> Tensor:
    return x * x


def towers(x: Tensor) -> Tensor:
    a = torch.jit.fork(square, x)
    b = torch.jit.fork(square, x + 1.0)
    return torch.jit.wait(a) + torch.jit.wait(b)


def scaled_sum(a: Tensor, b: Tensor) -> Tensor:
    return (a * 2.0 + b).sum()


class InstalledWheelTest(unittest.TestCase):
    def test_the_installed_package_is_used(self):
        self.assertTrue(os.path.realpath(static_runtime.__file__).startswith(
            os.path.realpath(VENV)), static_runtime.__file__)
        self.assertEqual(static_runtime.build_info()["version"], static_runtime.__version__)

    def test_models_give_the_jits_outputs(self):
        resnet = torch.jit.script(torchvision.models.resnet18().eval())
        image = torch.randn(1, 3, 64, 64)
        with torch.no_grad():
            expected = resnet(image)
        torch.testing.assert_close(static_runtime.to_static_module(resnet)(image), expected,
                                   rtol=1e-4, atol=1e-4)
        function = torch.jit.script(scaled_sum)
        a, b = torch.randn(4, 5), torch.randn(4, 5)
        self.assertTrue(torch.equal(static_runtime.to_static_module(function)(a, b),
                                    function(a, b)))
        dict_model = torch.jit.script(DictModel().eval())
        features = {"dense": torch.randn(2, 8), "extra": torch.randn(2, 8)}
        torch.testing.assert_close(static_runtime.StaticModule(dict_model)(features),
                                   dict_model(features), rtol=1e-4, atol=1e-4)

    def test_run_async_with_forks(self):
        scripted = torch.jit.script(towers)
        sm = static_runtime.to_static_module(scripted)
        x = torch.randn(3, 3)
        future = sm.runAsync((x,), {})
        future.wait()
        self.assertTrue(torch.equal(future.value(), scripted(x)))

    def test_benchmarks(self):
        sm = static_runtime.to_static_module(torch.jit.script(DictModel().eval()))
        features = {"dense": torch.randn(2, 8), "extra": torch.randn(2, 8)}
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            sm.benchmark([features], {}, 2, 3)
        self.assertIn("Static runtime ms per iter:", out.getvalue())
        metrics = sm.benchmark_individual_ops([features], {}, 2, 3)
        self.assertEqual(len(metrics.time_per_node), metrics.total_nodes_count)
        self.assertGreater(metrics.total_time, 0)

    def test_patch_torch(self):
        scripted = torch.jit.script(scaled_sum)
        a, b = torch.randn(3), torch.randn(3)
        static_runtime.patch_torch()
        try:
            sm = torch._C._jit_to_static_module(scripted.graph)  # an unchanged caller
            self.assertIsInstance(sm, static_runtime.StaticModule)
            self.assertTrue(torch.equal(sm(a, b), scripted(a, b)))
        finally:
            static_runtime.unpatch_torch()

    def test_command_line(self):
        with tempfile.TemporaryDirectory() as directory:
            model = os.path.join(directory, "model.pt")
            inputs = os.path.join(directory, "inputs.pt")
            torch.jit.save(torch.jit.script(DictModel().eval()), model)
            torch.save(({"dense": torch.randn(2, 8), "extra": torch.randn(2, 8)},), inputs)
            result = subprocess.run([sys.executable, "-m", "static_runtime", "verify", model,
                                     "--inputs", inputs], capture_output=True, text=True)
            self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
            self.assertIn("PASSED", result.stdout)


if __name__ == "__main__":
    unittest.main()
