"""Tests of the static_runtime Python package against the modules themselves
(Debian's python3-torch and python3-torchvision; no network)."""
import contextlib
import gc
import io
import os
import sys
import tempfile
import threading
import time
import unittest
from typing import Dict

import torch
import torchvision
from torch import Tensor, nn

import static_runtime

torch.manual_seed(0)


class DictModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(8, 4)

    def forward(self, features: Dict[str, Tensor], scale: float = 1.0) -> Tensor:
        return torch.relu(self.linear(features["dense"] + features["extra"])) * scale


class Lstm(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, num_layers=2, batch_first=True)

    def forward(self, x: Tensor) -> Tensor:
        return self.lstm(x)[0]


class Failing(nn.Module):
    def forward(self, x: Tensor) -> Tensor:
        return x.view(-1, 7)


class Slow(nn.Module):
    def forward(self, x: Tensor) -> Tensor:
        for _ in range(200):
            x = torch.matmul(x, x) / 512.0
        return x


def script(module):
    return torch.jit.script(module.eval())


class StaticModuleTest(unittest.TestCase):
    def assert_same(self, actual, expected, exact=True):
        if exact:
            self.assertTrue(torch.equal(actual, expected), (actual - expected).abs().max())
        else:  # oneDNN kernels: the README's tolerance
            torch.testing.assert_close(actual, expected, rtol=1e-4, atol=1e-4)

    def test_real_models_give_the_modules_outputs(self):
        encoder = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32, batch_first=True),
            num_layers=2, enable_nested_tensor=False)
        cases = [
            (torchvision.models.resnet18(), (torch.randn(1, 3, 64, 64),), True),
            (torchvision.models.mobilenet_v3_small(), (torch.randn(2, 3, 64, 64),), True),
            (encoder, (torch.randn(2, 5, 16),), False),
            (Lstm(), (torch.randn(3, 4, 8),), False),
        ]
        for model, args, has_batch_norm in cases:
            with self.subTest(type(model).__name__):
                scripted = script(model)
                with torch.no_grad():
                    expected = scripted(*args)
                sm = static_runtime.StaticModule(scripted)
                self.assert_same(sm(*args), expected, exact=False)
                # ATen's kernels give the JIT's bits, but where preparation
                # folds batch norms into convolutions (as freezing does).
                exact = static_runtime.StaticModule(scripted, prepack_weights=False)
                self.assert_same(exact(*args), expected, exact=not has_batch_norm)

    def test_dict_inputs_kwargs_and_graphs(self):
        scripted = script(DictModel())
        features = {"dense": torch.randn(2, 8), "extra": torch.randn(2, 8)}
        # The linear runs on a pre-packed kernel that sums in its own order
        # (within the declared tolerance, whatever BLAS core the JIT's
        # linear runs); without pre-packing it is ATen's: the JIT's bits on
        # every CPU.
        for options, exact in (({}, False), ({"prepack_weights": False}, True)):
            with self.subTest(**options):
                sm = static_runtime.StaticModule(scripted, **options)
                self.assert_same(sm(features), scripted(features), exact)
                self.assert_same(sm(features, scale=3.0), scripted(features, 3.0), exact)
                self.assert_same(sm(features=features, scale=0.5), scripted(features, 0.5), exact)
                graph = torch.jit.freeze(scripted).graph
                from_graph = static_runtime.StaticModule(graph, **options)
                self.assert_same(from_graph(features, 2.0), scripted(features, 2.0), exact)

    def test_errors_have_their_types_and_name_the_problem(self):
        sm = static_runtime.StaticModule(script(DictModel()))
        with self.assertRaisesRegex(TypeError, "features"):
            sm(torch.randn(2, 8))  # a tensor where a dict is expected
        with self.assertRaisesRegex(TypeError, "at most 2 argument"):
            sm({}, 1.0, 2.0)
        with self.assertRaisesRegex(ValueError, "unknown option 'enable_fusoin'"):
            static_runtime.StaticModule(script(DictModel()), enable_fusoin=False)
        with self.assertRaisesRegex(ValueError, "optimize_memory"):
            static_runtime.StaticModule(script(DictModel()), enable_out_variant=False,
                                        optimize_memory=True)
        with self.assertRaisesRegex(TypeError, "ScriptModule"):
            static_runtime.StaticModule(DictModel())
        failing = static_runtime.StaticModule(script(Failing()))
        with self.assertRaisesRegex(RuntimeError, r"aten::view.*x.view\(-1, 7\)"):
            failing(torch.randn(3, 5))
        self.assertEqual(failing(torch.randn(2, 7)).shape, (2, 7))  # still usable

    def test_pool_from_many_threads(self):
        scripted = script(DictModel())
        sm = static_runtime.StaticModule(scripted)
        pool = static_runtime.Pool(sm, max_runtimes=4)
        # Each thread's inputs, and the results one runtime gives them on
        # this thread (the same kernels as the pool's: the same bits).
        inputs, expected = {}, {}
        for seed in range(8):
            generator = torch.Generator().manual_seed(seed)
            inputs[seed] = [{"dense": torch.randn(3, 8, generator=generator),
                             "extra": torch.randn(3, 8, generator=generator)} for _ in range(50)]
            expected[seed] = [sm(features) for features in inputs[seed]]
            self.assert_same(expected[seed][0], scripted(inputs[seed][0]), exact=False)
        failures = []

        def worker(seed):
            for features, result in zip(inputs[seed], expected[seed]):
                if not torch.equal(pool(features), result):
                    failures.append(seed)

        threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(failures, [])

    def test_the_gil_is_released_while_the_model_runs(self):
        sm = static_runtime.StaticModule(script(Slow()))
        x = torch.eye(512)
        ticks = []
        done = threading.Event()

        def ticker():
            while not done.is_set():
                ticks.append(time.perf_counter())
                time.sleep(0.001)

        start = time.perf_counter()
        thread = threading.Thread(target=ticker)
        thread.start()
        sm(x)
        end = time.perf_counter()
        done.set()
        thread.join()
        during = [t for t in ticks if start < t < end]
        self.assertGreater(end - start, 0.05)
        self.assertGreater(len(during), 5, "the other Python thread made no progress")

    def test_no_reference_is_kept_after_10000_calls(self):
        sm = static_runtime.StaticModule(script(DictModel()))
        features = {"dense": torch.randn(2, 8), "extra": torch.randn(2, 8)}
        dense_refs = sys.getrefcount(features["dense"])
        dict_refs = sys.getrefcount(features)
        for _ in range(100):
            sm(features)
        gc.collect()
        objects = len(gc.get_objects())
        for _ in range(10000):
            out = sm(features)
        self.assertEqual(sys.getrefcount(out), 2)  # `out` and getrefcount's argument
        del out
        gc.collect()
        self.assertEqual(sys.getrefcount(features["dense"]), dense_refs)
        self.assertEqual(sys.getrefcount(features), dict_refs)
        self.assertLess(len(gc.get_objects()) - objects, 100)

    def test_benchmark_explain_and_stats(self):
        sm = static_runtime.StaticModule(script(DictModel()))
        features = {"dense": torch.randn(2, 8), "extra": torch.randn(2, 8)}
        result = sm.benchmark_individual_ops([features], main_runs=5)
        for field in ("setup_time", "first_iter_time", "total_time", "time_per_node_type",
                      "percent_per_node_type", "instances_per_node_type", "out_nodes_count",
                      "total_nodes_count", "kernel_per_node_type", "memory"):
            self.assertTrue(hasattr(result, field), field)
        self.assertGreater(result.total_time, 0)
        self.assertAlmostEqual(sum(result.percent_per_node_type.values()), 100, places=3)
        self.assertIn("static_runtime::linear_fused", result.time_per_node_type)
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):  # as PyTorch's, benchmark() prints
            timed = sm.benchmark([features])
        self.assertEqual(timed.time_per_node_type.keys(), result.time_per_node_type.keys())
        self.assertIn("Static runtime ms per iter", printed.getvalue())
        counts = sm.kernel_counts()
        self.assertEqual(sum(counts.values()), result.total_nodes_count)
        self.assertIn("linear_fused", sm.explain())
        self.assertIn("managed_tensors", sm.memory_stats(features))

    def test_warmup_calls_each_sample_before_the_module_is_returned(self):
        mlp = script(nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4)))
        # Two calls at one shape: the first measures, the second runs in the arena.
        warmed = static_runtime.StaticModule(
            mlp, warmup=[(torch.randn(64, 8),), (torch.randn(64, 8),)])
        stats = warmed.memory_stats()
        self.assertEqual(stats["runtimes"], 1)
        self.assertGreater(stats["arena_bytes"], 0)
        self.assertEqual(static_runtime.StaticModule(mlp).memory_stats()["runtimes"], 0)
        with self.assertRaises(RuntimeError) as raised:
            static_runtime.StaticModule(mlp, warmup=[(torch.randn(2, 8),), (torch.randn(2, 9),)])
        self.assertIn("(in the call of warmup[1])", raised.exception.__notes__)
        with self.assertRaisesRegex(TypeError, r"warmup\[0\] must be a tuple"):
            static_runtime.StaticModule(mlp, warmup=[torch.randn(2, 8)])

    def test_memory_stats_describe_the_serving_runtimes(self):
        mlp = static_runtime.StaticModule(
            script(nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))))
        for rows in (2, 2, 256, 256, 2):
            mlp(torch.randn(rows, 8))
        stats = mlp.memory_stats()
        # The arena the largest call grew, kept: not a fresh runtime's for 2 rows.
        self.assertEqual(stats["runtimes"], 1)
        self.assertGreaterEqual(stats["arena_bytes"], 256 * 16 * 4)
        self.assertEqual(stats["total_arena_bytes"], stats["arena_bytes"])
        # The kernels' caches: the linears' weights re-laid out, plans for the shapes met.
        self.assertGreater(stats["prepared_weight_bytes"], 0)
        self.assertGreater(stats["prepared_weights"], 0)
        self.assertEqual(stats["shape_plans"],
                         stats["shape_plans_made"] - stats["shape_plans_evicted"])
        self.assertGreater(mlp.memory_stats(torch.randn(2, 8))["output_slab_bytes"], 0)

    def test_shape_plans_per_kernel_bounds_the_plans_kept(self):
        model = script(nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 4)))
        bounded = static_runtime.StaticModule(model, shape_plans_per_kernel=2)
        for rows in (300, 301, 302, 303, 300):
            x = torch.randn(rows, 8)
            torch.testing.assert_close(bounded(x), model(x))
        stats = bounded.memory_stats()
        self.assertGreater(stats["shape_plans_evicted"], 0)
        self.assertEqual(stats["shape_plans"],
                         stats["shape_plans_made"] - stats["shape_plans_evicted"])
        for wrong in (0, -1):
            with self.assertRaisesRegex(ValueError, "shape_plans_per_kernel must be at least 1"):
                static_runtime.StaticModule(model, shape_plans_per_kernel=wrong)
        with self.assertRaisesRegex(ValueError, "takes a number of input shapes"):
            static_runtime.StaticModule(model, shape_plans_per_kernel=True)

    def test_compare_prints_the_three_runtimes(self):
        out = io.StringIO()
        result = static_runtime.compare(script(DictModel()),
                                        ({"dense": torch.randn(2, 8), "extra": torch.randn(2, 8)},),
                                        iters=5, warmup=1, file=out)
        self.assertLess(result["max_abs_diff"], 1e-4)  # the pre-packed linear's tolerance
        self.assertIn("pytorch sr", out.getvalue())
        self.assertIn("static_runtime / pytorch sr", out.getvalue())

    def test_command_line_bench(self):
        from static_runtime import __main__ as command_line
        with tempfile.TemporaryDirectory() as directory:
            model = os.path.join(directory, "model.pt")
            inputs = os.path.join(directory, "inputs.pt")
            torch.jit.save(script(DictModel()), model)
            torch.save(({"dense": torch.randn(2, 8), "extra": torch.randn(2, 8)}, 2.0), inputs)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                code = command_line.main(["bench", model, "--inputs", inputs, "--iters", "3"])
            self.assertEqual(code, 0)
            self.assertIn("static_runtime / pytorch sr", out.getvalue())
            with contextlib.redirect_stderr(io.StringIO()) as err:
                code = command_line.main(["bench", model + ".missing", "--inputs", inputs])
            self.assertEqual(code, 1)
            self.assertIn("cannot load", err.getvalue())

    def test_command_line_reads_a_dict_of_keyword_arguments(self):
        from static_runtime import __main__ as command_line

        class TwoInputs(nn.Module):
            def forward(self, tokens: Tensor, mask: Tensor, scale: float = 2.0) -> Tensor:
                return tokens.masked_fill(mask, 0.0) * scale

        with tempfile.TemporaryDirectory() as directory:
            model = os.path.join(directory, "model.pt")
            torch.jit.save(script(TwoInputs()), model)
            kwargs = os.path.join(directory, "kwargs.pt")
            torch.save({"mask": torch.rand(3, 4) > 0.5, "tokens": torch.randn(3, 4)}, kwargs)
            with contextlib.redirect_stdout(io.StringIO()) as out:
                code = command_line.main(["verify", model, "--inputs", kwargs])
            self.assertEqual(code, 0, out.getvalue())
            self.assertIn("PASSED", out.getvalue())
            # A dict model's dict stays its one argument.
            dict_model = os.path.join(directory, "dict_model.pt")
            torch.jit.save(script(DictModel()), dict_model)
            features = os.path.join(directory, "features.pt")
            torch.save({"dense": torch.randn(2, 8), "extra": torch.randn(2, 8)}, features)
            with contextlib.redirect_stdout(io.StringIO()) as out:
                code = command_line.main(["verify", dict_model, "--inputs", features])
            self.assertEqual(code, 0, out.getvalue())
            unknown = os.path.join(directory, "unknown.pt")
            torch.save({"tokens": torch.randn(3, 4), "masks": torch.rand(3, 4) > 0.5}, unknown)
            with contextlib.redirect_stderr(io.StringIO()) as err:
                code = command_line.main(["verify", model, "--inputs", unknown])
            self.assertEqual(code, 1)
            self.assertIn("unexpected keyword argument 'masks' (arguments: tokens, mask, scale)",
                          err.getvalue())


if __name__ == "__main__":
    unittest.main()
