"""What PyTorch's Static Runtime 1.13 runs from Python, static_runtime runs
with the JIT's results: modules that assign their own attributes and
TorchScript objects (saved by runtime/testdata/save_stateful.py), writes to input tensors, calls into Python (torch.jit.ignore), forks
with runAsync, scripted functions and graphs (with prim::TypeCheck and
prim::RequiresGradCheck), errors of the JIT's kinds. Each model runs under the
standard option sets, on two input sizes, twice (Debian's python3-torch; no
network)."""
import os
import unittest
from typing import List

import torch
import torchvision
from torch import Tensor, nn

import static_runtime

# The option sets of golden/option_sets.cc that a Python StaticModule takes.
OPTION_SETS = static_runtime.standard_option_sets()


def saved_model(name):
    """A model of runtime/testdata/save_stateful.py, as torch.jit.save wrote it."""
    runfiles = os.environ.get("TEST_SRCDIR")
    directory = (os.path.join(runfiles, os.environ["TEST_WORKSPACE"], "runtime", "testdata")
                 if runfiles else os.path.join(os.path.dirname(__file__), "..", "..", "testdata"))
    return torch.jit.load(os.path.join(directory, name)).eval()


class WritesInput(nn.Module):
    def forward(self, x: Tensor, y: Tensor) -> Tensor:
        x.add_(1.0)
        y.mul_(2.0)
        return x + y


def square_sum(a: Tensor, b: Tensor) -> Tensor:
    return a * a + b * b


def forked(a: Tensor, b: Tensor) -> Tensor:
    future = torch.jit.fork(square_sum, a, b)
    return torch.jit.wait(future) + a


def add(a: Tensor, b: Tensor) -> Tensor:
    return a + b


def forked_failure(a: Tensor, b: Tensor) -> Tensor:
    return torch.jit.wait(torch.jit.fork(add, a, b))


def many_forks(x: Tensor, n: int) -> Tensor:
    futures: List[torch.jit.Future[Tensor]] = []
    for _ in range(n):
        futures.append(torch.jit.fork(torch.neg, x))
    results = []
    for future in futures:
        results.append(torch.jit.wait(future))
    return torch.sum(torch.stack(results))


@torch.jit.ignore
def python_helper(x: Tensor) -> Tensor:
    return x * 3.0


class CallsPython(nn.Module):
    def forward(self, x: Tensor) -> Tensor:
        return python_helper(x + 1.0) - 2.0


def index(values: List[int], i: int) -> int:
    return values[i]


def checked(x: Tensor, n: int) -> Tensor:
    if n > 3:
        raise ValueError("n is too large")
    return x + n


TYPE_CHECK_IR = """
graph(%a.1 : Tensor,
      %b.1 : Tensor):
  %t0 : Float(2, 2, strides=[2, 1], device=cpu), %t1 : Float(3, 3, strides=[3, 1]), %ok : bool = prim::TypeCheck[types=[Float(2, 2, strides=[2, 1], device=cpu), Float(3, 3, strides=[3, 1])]](%a.1, %b.1)
  return (%t0, %t1, %ok)
"""


REQUIRES_GRAD_CHECK_IR = """
graph(%a.1 : Tensor):
  %t0 : Tensor, %ok : bool = prim::RequiresGradCheck[types=[Float(2, strides=[1], requires_grad=0, device=cpu)]](%a.1)
  return (%t0, %ok)
"""


def copy_args(args):
    return [a.clone() if isinstance(a, Tensor) else a for a in args]


class EmbeddingTower(nn.Module):
    def __init__(self):
        super().__init__()
        self.bag = nn.EmbeddingBag(100, 8, mode="sum")
        self.dense = nn.Linear(8, 4)

    def forward(self, ids: Tensor, offsets: Tensor) -> Tensor:
        return torch.relu(self.dense(self.bag(ids, offsets)))


class ForkedWideAndDeep(nn.Module):
    """An ads model that forks its embedding tower: frozen, the forked call
    receives the prim::Uninitialized value nn.EmbeddingBag's argument checks
    leave in a raising branch."""

    def __init__(self):
        super().__init__()
        self.tower = EmbeddingTower()
        self.wide = nn.Linear(6, 4)

    def forward(self, dense: Tensor, ids: Tensor, offsets: Tensor) -> Tensor:
        future = torch.jit.fork(self.tower, ids, offsets)
        return torch.sigmoid(self.wide(dense) + torch.jit.wait(future))


class CompatibilityTest(unittest.TestCase):
    def assert_matches(self, make_jit, make_static, input_sets, prepacked_tolerance=0.0):
        """Under every option set, a fresh JIT model and a static module of
        it give the same results (and leave the same inputs) on every input
        set, twice round: bit for bit, or, where weights are pre-packed (the
        linears' own summation order), within `prepacked_tolerance`."""
        for name, options in OPTION_SETS.items():
            with self.subTest(options=name):
                jit = make_jit()
                static = static_runtime.StaticModule(make_static(jit), **options)
                tolerance = prepacked_tolerance if options.get("prepack_weights", True) else 0.0
                for _ in range(2):
                    for args in input_sets:
                        jit_args, our_args = copy_args(args), copy_args(args)
                        expected = jit(*jit_args)
                        actual = static(*our_args)
                        torch.testing.assert_close(actual, expected, rtol=tolerance,
                                                   atol=tolerance)
                        for ours, theirs in zip(our_args, jit_args):
                            if isinstance(ours, Tensor):
                                self.assertTrue(torch.equal(ours, theirs))

    def test_modules_that_assign_their_attributes(self):
        inputs = [(torch.randn(2, 2),), (torch.randn(4, 5),)]
        self.assert_matches(lambda: saved_model("stateful_attributes.pt"), lambda m: m, inputs)
        # PyTorch's test_attr: benchmark with positional and keyword arguments.
        sm = static_runtime.StaticModule(saved_model("stateful_attributes.pt"))
        x = torch.randn(2, 2)
        sm.benchmark([x], {}, 2, 2)
        sm.benchmark_individual_ops([], {"x": x}, 2, 2)

    def test_forks_pass_uninitialized_values(self):
        inputs = [(torch.randn(3, 6), torch.randint(0, 100, (7,)), torch.tensor([0, 2, 5])),
                  (torch.randn(1, 6), torch.randint(0, 100, (2,)), torch.tensor([0]))]
        self.assert_matches(lambda: torch.jit.freeze(torch.jit.script(ForkedWideAndDeep().eval())),
                            lambda m: m, inputs, prepacked_tolerance=1e-5)

    def test_models_that_warn(self):
        # Scripted GoogLeNet warns on every call (aten::warn, which the
        # interpreter runs itself), with and without its auxiliary heads.
        inputs = [(torch.randn(1, 3, 64, 64),), (torch.randn(2, 3, 48, 48),)]
        for aux_logits in (False, True):
            with self.subTest(aux_logits=aux_logits):
                model = torch.jit.script(torchvision.models.googlenet(
                    aux_logits=aux_logits, init_weights=False).eval())
                # Pre-packed, batch norms fold into the convolutions.
                self.assert_matches(lambda: model, lambda m: m, inputs, prepacked_tolerance=1e-3)

    def test_torchscript_objects(self):
        inputs = [(torch.randn(3),), (torch.randn(2, 4),)]
        self.assert_matches(lambda: saved_model("stateful_object.pt"), lambda m: m, inputs)
        self.assert_matches(lambda: torch.jit.freeze(saved_model("stateful_object.pt")),
                            lambda m: m, inputs)

    def test_writes_to_input_tensors(self):
        inputs = [(torch.randn(3), torch.randn(3)), (torch.randn(2, 5), torch.randn(2, 5))]
        self.assert_matches(lambda: torch.jit.script(WritesInput()), lambda m: m, inputs)
        x = torch.zeros(2)
        static_runtime.StaticModule(torch.jit.script(WritesInput()))(x, torch.ones(2))
        self.assertTrue(torch.equal(x, torch.ones(2)))

    def test_scripted_functions_and_graphs(self):
        inputs = [(torch.randn(5, 5), torch.randn(5, 5)), (torch.randn(2), torch.randn(2))]
        self.assert_matches(lambda: torch.jit.script(forked), lambda f: f, inputs)
        self.assert_matches(lambda: torch.jit.script(forked), lambda f: f.graph, inputs)
        self.assert_matches(lambda: torch.jit.script(many_forks), lambda f: f,
                            [(torch.ones(3, 3), 10), (torch.randn(2), 3)])

    def test_python_calls(self):
        inputs = [(torch.randn(3),), (torch.randn(2, 4),)]
        self.assert_matches(lambda: torch.jit.script(CallsPython()), lambda m: m, inputs)

    def test_type_check_graphs(self):
        graph = torch._C.parse_ir(TYPE_CHECK_IR)
        sm = static_runtime.StaticModule(graph)
        for _ in range(2):
            a, b = torch.zeros(2, 2), torch.ones(3, 3)
            self.assertEqual(sm(a, b)[2], True)
            self.assertEqual(sm(a, torch.ones(2, 2, 2))[2], False)
            self.assertEqual(sm(a.t(), b)[2], False)
            self.assertTrue(torch.equal(sm(a, b)[1], b))

    def test_requires_grad_check_graphs(self):
        graph = torch._C.parse_ir(REQUIRES_GRAD_CHECK_IR)
        sm = static_runtime.StaticModule(graph)
        for _ in range(2):
            self.assertEqual(sm(torch.ones(2))[1], True)
            self.assertEqual(sm(torch.ones(2, requires_grad=True))[1], False)

    def test_run_async(self):
        scripted = torch.jit.script(forked)
        sm = static_runtime.StaticModule(scripted)
        a, b = torch.randn(5, 5), torch.randn(5, 5)
        future = sm.runAsync((a, b), {})
        future.wait()
        self.assertTrue(torch.equal(future.value(), scripted(a, b)))
        futures = [sm.runAsync((torch.full((2,), float(i)), b[0, :2]), {}) for i in range(8)]
        for i, future in enumerate(futures):
            self.assertTrue(torch.equal(future.wait(), scripted(torch.full((2,), float(i)),
                                                                  b[0, :2])))

    def test_errors_inside_forks_keep_their_message(self):
        sm = static_runtime.StaticModule(torch.jit.script(forked_failure))
        message = ("The size of tensor a (7) must match the size of tensor b (5) "
                   "at non-singleton dimension 1")
        with self.assertRaisesRegex(RuntimeError, message.replace("(", r"\(").replace(")", r"\)")):
            sm.runAsync((torch.randn(4, 7), torch.randn(4, 5)), {}).wait()
        with self.assertRaises(RuntimeError) as raised:
            sm(torch.randn(4, 7), torch.randn(4, 5))
        self.assertIn(message, str(raised.exception))
        self.assertTrue(torch.equal(sm(torch.ones(2), torch.ones(2)), torch.full((2,), 2.0)))

    def test_errors_have_the_jits_kinds(self):
        sm = static_runtime.StaticModule(torch.jit.script(index))
        with self.assertRaisesRegex(IndexError, "^list index out of range"):
            sm([1, 2], 5)
        self.assertEqual(sm([1, 2], -1), 2)
        sm = static_runtime.StaticModule(torch.jit.script(checked))
        with self.assertRaises(torch.jit.Error) as raised:
            sm(torch.ones(2), 5)
        self.assertIsInstance(raised.exception, RuntimeError)  # as PyTorch's Static Runtime
        self.assertIsInstance(raised.exception, static_runtime.ModelError)
        self.assertIn("n is too large", str(raised.exception).splitlines()[0])
        with self.assertRaises(TypeError):
            sm(torch.ones(2), "five")
        self.assertTrue(torch.equal(sm(torch.ones(2), 1), torch.full((2,), 2.0)))


if __name__ == "__main__":
    unittest.main()
