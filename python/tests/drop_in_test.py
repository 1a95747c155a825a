"""static_runtime as a drop-in for torch._C._jit_to_static_module: the same
inputs, methods and result types as PyTorch's Static Runtime, patch_torch()
under an unchanged caller, the typed and documented surface (stub, help,
options), version and provenance, and `python3 -m static_runtime` (Debian's
python3-torch; no network)."""
import contextlib
import io
import os
import re
import subprocess
import sys
import tempfile
import unittest
from typing import Dict

import torch
from torch import Tensor, nn

import static_runtime


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(8, 4)

    def forward(self, x: Tensor, scale: float = 1.0) -> Tensor:
        return torch.relu(self.linear(x)) * scale


class DictModel(nn.Module):
    def forward(self, features: Dict[str, Tensor]) -> Tensor:
        return features["a"] * 2.0 + features["b"]


def scaled_sum(a: Tensor, b: Tensor) -> Tensor:
    return (a * 2.0 + b).sum()


class CallerOfPyTorchsApi:
    """Written for PyTorch's Static Runtime (as torch.testing._internal's
    StaticModule wrapper is): it only calls torch._C._jit_to_static_module."""

    def __init__(self, scripted):
        if hasattr(scripted, "_c"):
            self.static_module = torch._C._jit_to_static_module(scripted._c)
        else:
            self.static_module = torch._C._jit_to_static_module(scripted.graph)

    def __call__(self, *args, **kwargs):
        return self.static_module(*args, **kwargs)

    def benchmark_individual_ops(self, args, kwargs, warmup_runs, main_runs):
        return self.static_module.benchmark_individual_ops(args, kwargs, warmup_runs, main_runs)


class DropInTest(unittest.TestCase):
    def test_takes_what_pytorchs_takes(self):
        scripted = torch.jit.script(Mlp().eval())
        x = torch.randn(3, 8)
        expected = scripted(x)
        function = torch.jit.script(scaled_sum)
        for model in (scripted, scripted._c, torch.jit.freeze(scripted)):
            with self.subTest(type(model).__name__):
                sm = static_runtime.to_static_module(model, prepack_weights=False)
                self.assertTrue(torch.equal(sm(x), expected))
                self.assertTrue(torch.equal(sm(x, scale=2.0), scripted(x, 2.0)))
        for model in (function, function.graph):
            with self.subTest(type(model).__name__):
                sm = static_runtime.to_static_module(model)
                self.assertTrue(torch.equal(sm(x, x), function(x, x)))
        with self.assertRaisesRegex(TypeError, "ScriptModule"):
            static_runtime.to_static_module(Mlp())

    def test_patch_torch_serves_an_unchanged_caller(self):
        scripted = torch.jit.script(Mlp().eval())
        x = torch.randn(2, 8)
        pytorchs = CallerOfPyTorchsApi(scripted)
        pytorch_metrics = pytorchs.benchmark_individual_ops([x], {}, 1, 2)
        static_runtime.patch_torch()
        try:
            ours = CallerOfPyTorchsApi(scripted)
            self.assertIsInstance(ours.static_module, static_runtime.StaticModule)
            torch.testing.assert_close(ours(x), scripted(x), rtol=1e-4, atol=1e-4)
            features = {"a": torch.randn(2, 3), "b": torch.randn(2, 3)}
            dict_model = torch.jit.script(DictModel())
            self.assertTrue(torch.equal(CallerOfPyTorchsApi(dict_model)(features),
                                        dict_model(features)))
            function = torch.jit.script(scaled_sum)
            self.assertTrue(torch.equal(CallerOfPyTorchsApi(function)(x, x), function(x, x)))
            metrics = ours.benchmark_individual_ops([x], {}, 1, 2)
        finally:
            static_runtime.unpatch_torch()
        self.assertNotIsInstance(CallerOfPyTorchsApi(scripted).static_module,
                                 static_runtime.StaticModule)
        # Every field of PyTorch's IndividualMetrics, with its type.
        for field in dir(pytorch_metrics):
            if field.startswith("_"):
                continue
            with self.subTest(field):
                self.assertTrue(hasattr(metrics, field))
                self.assertIsInstance(getattr(metrics, field),
                                      type(getattr(pytorch_metrics, field)))
        self.assertEqual(len(metrics.time_per_node), metrics.total_nodes_count)
        self.assertAlmostEqual(sum(metrics.percent_per_node_type.values()), 100, places=3)

    def test_benchmark_prints_as_pytorchs(self):
        sm = static_runtime.to_static_module(torch.jit.script(Mlp().eval()))
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            metrics = sm.benchmark([torch.randn(3, 8)], {}, 2, 3)
        text = out.getvalue()
        for line in (r"^Static runtime ms per iter: [0-9.e+-]+\. Iters per second: [0-9.e+-]+$",
                     r"^Time per node type:$",
                     r"^ +[0-9.e+-]+ ms\. +[0-9.e+-]+%\. static_runtime::linear_fused "
                     r"\(1 nodes, out variant\)$",
                     r"^ +[0-9.e+-]+ ms\. in Total$",
                     r"^First iter time: [0-9.e+-]+ ms$",
                     r"^Total number of 'out' variant nodes/total number of nodes: \d+/\d+"):
            self.assertRegex(text, re.compile(line, re.MULTILINE))
        self.assertGreater(metrics.ms_per_iter, 0)

    def test_typed_and_documented(self):
        options = static_runtime.option_descriptions()
        with open(os.path.join(os.path.dirname(static_runtime.__file__), "__init__.pyi")) as f:
            stub = f.read()
        init = stub[stub.index("class StaticModule:"):stub.index("def __call__")]
        stub_options = set(re.findall(r"(\w+): bool = \.\.\.", init)) - {"frozen"}
        self.assertEqual(stub_options, set(options))
        for name in static_runtime.__all__:
            self.assertRegex(stub, rf"(?m)(def|class) {name}\b|^{name}:|^{name} =",
                             f"{name} missing from the stub")
        self.assertTrue(os.path.exists(os.path.join(os.path.dirname(static_runtime.__file__),
                                                    "py.typed")))
        help_text = io.StringIO()
        with contextlib.redirect_stdout(help_text):
            help(static_runtime.StaticModule)
        for name, description in options.items():
            self.assertIn(f"{name} (default {static_runtime.option_defaults()[name]}): "
                          f"{description}", help_text.getvalue())
        for function in (static_runtime.to_static_module, static_runtime.patch_torch,
                         static_runtime.StaticModule.runAsync, static_runtime.build_info):
            self.assertTrue(function.__doc__)

    def test_version_and_provenance(self):
        self.assertRegex(static_runtime.__version__, r"^\d+\.\d+\.\d+$")
        info = static_runtime.build_info()
        self.assertEqual(info["libtorch_version"].split(".")[:2], torch.__version__.split(".")[:2])
        self.assertRegex(info["onednn_version"], r"^\d+\.\d+\.\d+$")
        self.assertRegex(info["compiler"], "^(gcc|clang) ")
        self.assertEqual(info["option_defaults"], static_runtime.option_defaults())
        self.assertTrue(info["openblas_core"])  # Debian's LibTorch runs on OpenBLAS
        if os.environ.get("OPENBLAS_CORETYPE"):
            self.assertEqual(info["openblas_core"].lower(),
                             os.environ["OPENBLAS_CORETYPE"].lower())
        self.assertTrue(info["best_openblas_core"])
        self.assertTrue(info["onednn_isa"])
        # Against another LibTorch the import fails, naming both versions.
        probe = ("import torch; torch.__version__ = '2.1.0'\n"
                 "try:\n    import static_runtime\nexcept ImportError as e:\n    print(e)\n")
        result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                                env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
        self.assertIn(f"built for LibTorch {info['libtorch_version']}", result.stdout)
        self.assertIn("torch is 2.1.0", result.stdout)

    def test_command_line_verify_and_compile(self):
        from static_runtime import __main__ as command_line
        with tempfile.TemporaryDirectory() as directory:
            model = os.path.join(directory, "model.pt")
            inputs = [os.path.join(directory, name) for name in ("a.pt", "b.pt")]
            torch.jit.save(torch.jit.script(DictModel()), model)
            torch.save(({"a": torch.randn(2, 3), "b": torch.randn(2, 3)},), inputs[0])
            torch.save(({"a": torch.randn(5), "b": torch.randn(5)},), inputs[1])
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                code = command_line.main(["verify", model, "--inputs", ",".join(inputs)])
            self.assertEqual(code, 0, out.getvalue())
            # The options as given, and every standard set but the defaults
            # (sr verify's sets, managed output tensors' too): each on two
            # input files, twice.
            sets = len(static_runtime._static_runtime.standard_option_sets())
            self.assertRegex(out.getvalue(),
                             rf"verify: {sets} option sets, {sets * 4} runs, .* 0 failed: PASSED")
            package = os.path.join(directory, "model.srpkg")
            with contextlib.redirect_stdout(io.StringIO()):
                code = command_line.main(["compile", model, "-o", package, "--inputs", inputs[0],
                                          "--enable_fusion=false"])
            self.assertEqual(code, 0)
            self.assertGreater(os.path.getsize(package), 0)
            with contextlib.redirect_stderr(io.StringIO()) as err:
                code = command_line.main(["verify", model, "--inputs", inputs[0], "--no_such=1"])
            self.assertEqual(code, 2)
            self.assertIn("unknown flag --no_such=1", err.getvalue())


if __name__ == "__main__":
    unittest.main()
