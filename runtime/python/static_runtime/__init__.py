"""static_runtime from Python: a drop-in for PyTorch's static module bindings
(torch._C._jit_to_static_module), on this project's runtime.

    import torch, torchvision, static_runtime
    model = torch.jit.script(torchvision.models.resnet18().eval())
    sm = static_runtime.StaticModule(model)
    y = sm(torch.randn(1, 3, 224, 224))

StaticModule(module_or_graph_or_function, *, frozen=False, sample_inputs=None,
max_runtimes=8, **options): options by their C++ names (enable_fusion=False,
prepack_weights=False, ...; option_defaults() lists them). Calls bind their
arguments to the model's schema as the JIT does (keyword arguments too) and
release the GIL while the model runs; one object may be called from many
threads at once (it keeps up to max_runtimes runtimes). Errors: TypeError for
arguments that do not fit the schema, ValueError for a bad option,
RuntimeError for a model the runtime cannot prepare (with the check's list).
A failing run raises what the failing node raised, as the JIT does
(IndexError, ValueError, TypeError, RuntimeError for LibTorch's errors,
ModelError, a torch.jit.Error and RuntimeError, for the model's own raise),
its message first and unchanged, then which node failed at which source line.
"""
import os
import time
import types

import torch

# From a checkout (PYTHONPATH=runtime/python after `bazel build
# //runtime/python:static_runtime`), the extension is in bazel-bin.
_BUILT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "bazel-bin",
                      "runtime", "python", "static_runtime")
if os.path.isdir(_BUILT):
    __path__.append(_BUILT)

from static_runtime import _static_runtime  # noqa: E402

__all__ = ["StaticModule", "Pool", "ModelError", "compare", "option_defaults"]

# What a model's own raise gives: a torch.jit.Error and a RuntimeError.
ModelError = _static_runtime.ModelError


def option_defaults():
    """{option name: default} of every runtime option."""
    return dict(_static_runtime.option_defaults())


def _options(options):
    """The options as given; the extension rejects unknown names and bad
    combinations (ValueError)."""
    for name, value in options.items():
        if not isinstance(value, bool):
            raise ValueError(f"option {name} takes True or False, not {value!r}")
    return dict(options)


def _without_unused_self(graph):
    """A method's graph (a frozen module's forward) starts with `self`; when
    nothing uses it, callers pass only the real arguments."""
    inputs = list(graph.inputs())
    if inputs and isinstance(inputs[0].type(), torch._C.ClassType) and not inputs[0].uses():
        graph = graph.copy()
        graph.eraseInput(0)
    return graph


class BenchmarkResult(types.SimpleNamespace):
    """What benchmark() and benchmark_individual_ops() return: PyTorch's
    fields (times in milliseconds: setup_time, first_iter_time, total_time
    per run; time_per_node_type per run, percent_per_node_type,
    instances_per_node_type per run, out_nodes_count, total_nodes_count) and
    ours (kernel_per_node_type, memory: the arena and unmanaged values)."""


class StaticModule:
    """A TorchScript module (or graph) prepared once for the static runtime."""

    def __init__(self, module_or_graph, *, frozen=False, sample_inputs=None, max_runtimes=8,
                 **options):
        options = _options(options)
        samples = list(sample_inputs) if sample_inputs is not None else []
        if isinstance(module_or_graph, torch.jit.ScriptModule):
            self._module = _static_runtime._Module.from_script_module(
                module_or_graph._c, frozen, options, samples, max_runtimes)
        elif isinstance(module_or_graph, torch._C.ScriptModule):
            self._module = _static_runtime._Module.from_script_module(
                module_or_graph, frozen, options, samples, max_runtimes)
        elif isinstance(module_or_graph, (torch._C.Graph, torch.jit.ScriptFunction)):
            graph = module_or_graph if isinstance(module_or_graph, torch._C.Graph) else \
                module_or_graph.graph
            self._module = _static_runtime._Module.from_graph(
                _without_unused_self(graph), options, samples, max_runtimes)
        else:
            raise TypeError("StaticModule takes a torch.jit.ScriptModule (torch.jit.script or "
                            "torch.jit.load), a torch.jit.ScriptFunction or a torch._C.Graph, "
                            f"not {type(module_or_graph)}")

    def __call__(self, *args, **kwargs):
        return self._module(*args, **kwargs)

    def runAsync(self, args, kwargs=None):  # noqa: N802 (PyTorch's name)
        """Starts a call on LibTorch's inter-op thread pool and returns its
        torch.futures.Future: wait() gives the result, or raises the error of
        the failing node (with its message unchanged)."""
        return self._module.run_async(tuple(args), dict(kwargs or {}))

    def benchmark(self, args, kwargs=None, warmup_runs=1, main_runs=10):
        """Times main_runs calls after warmup_runs on one runtime."""
        return BenchmarkResult(**self._module.benchmark(
            tuple(args), dict(kwargs or {}), warmup_runs, main_runs, False))

    def benchmark_individual_ops(self, args, kwargs=None, warmup_runs=1, main_runs=10):
        """benchmark(), then as many runs timing every node, by node kind."""
        return BenchmarkResult(**self._module.benchmark(
            tuple(args), dict(kwargs or {}), warmup_runs, main_runs, True))

    def explain(self):
        """The prepared graph, each node's kernel kind and why a node falls back."""
        return self._module.explain()

    def memory_stats(self, *args, **kwargs):
        """The memory plan after one run on these arguments."""
        return self._module.memory_stats(*args, **kwargs)

    def kernel_counts(self):
        """{"out_variant": n, "native": n, "fallback": n} over the prepared graph."""
        return self._module.kernel_counts()


class Pool(StaticModule):
    """`module` (a StaticModule, or what StaticModule takes) with its own pool
    of up to max_runtimes runtimes, for many threads at once."""

    def __init__(self, module, max_runtimes, **kwargs):
        if isinstance(module, StaticModule):
            if kwargs:
                raise ValueError("Pool of a StaticModule takes no options: "
                                 f"{', '.join(sorted(kwargs))}")
            self._module = module._module.with_pool(max_runtimes)
        else:
            super().__init__(module, max_runtimes=max_runtimes, **kwargs)


def _max_abs_difference(expected, actual):
    if isinstance(expected, torch.Tensor):
        return (expected.double() - actual.double()).abs().max().item() if expected.numel() else 0.0
    if isinstance(expected, (list, tuple)):
        return max([_max_abs_difference(e, a) for e, a in zip(expected, actual)], default=0.0)
    if isinstance(expected, dict):
        return max([_max_abs_difference(v, actual[k]) for k, v in expected.items()], default=0.0)
    return 0.0 if expected == actual else float("inf")


def compare(module, args, kwargs=None, iters=100, warmup=10, file=None):
    """Times the JIT, PyTorch's Static Runtime and ours on `args`, call by call
    interleaved in this process, prints a small table and returns
    {name: median milliseconds} with "max_abs_diff" (ours against the JIT)."""
    kwargs = kwargs or {}
    module = module.eval()
    try:
        jit = torch.jit.freeze(module)  # as both static runtimes freeze it
    except RuntimeError:  # already frozen
        jit = module
    ours = StaticModule(module)
    psr = torch._C._jit_to_static_module(module._c)
    with torch.no_grad():
        expected = jit(*args, **kwargs)
    sides = {"jit": lambda: jit(*args, **kwargs), "pytorch sr": lambda: psr(*args, **kwargs),
             "static_runtime": lambda: ours(*args, **kwargs)}
    samples = {name: [] for name in sides}
    with torch.no_grad():
        for i in range(warmup + iters):
            for name, call in sides.items():
                start = time.perf_counter()
                call()
                if i >= warmup:
                    samples[name].append((time.perf_counter() - start) * 1000)
    medians = {name: sorted(times)[len(times) // 2] for name, times in samples.items()}
    result = dict(medians)
    result["max_abs_diff"] = _max_abs_difference(expected, ours(*args, **kwargs))
    print(f"{'':<16}{'median ms':>12}{'/ jit':>8}", file=file)
    for name, median in medians.items():
        print(f"{name:<16}{median:>12.4f}{median / medians['jit']:>8.3f}", file=file)
    print(f"static_runtime / pytorch sr: {medians['static_runtime'] / medians['pytorch sr']:.3f}; "
          f"max |static_runtime - jit| = {result['max_abs_diff']:.3g}", file=file)
    return result
