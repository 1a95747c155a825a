"""static_runtime: a static runtime for TorchScript inference, a drop-in for
PyTorch's Static Runtime (torch._C._jit_to_static_module) on LibTorch 1.13.

    import torch, torchvision, static_runtime
    model = torch.jit.script(torchvision.models.resnet18().eval())
    sm = static_runtime.to_static_module(model)
    y = sm(torch.randn(1, 3, 224, 224))
    sm.benchmark([torch.randn(1, 3, 224, 224)], {}, 2, 10)

to_static_module(x, **options) takes what torch._C._jit_to_static_module
takes (torch.jit.ScriptModule or its ._c, torch.jit.ScriptFunction,
torch._C.Graph) and returns a StaticModule with the same methods and result
types; patch_torch() makes torch._C._jit_to_static_module return ours.
Options by their C++ names (option_descriptions() lists them). Calls bind
their arguments to the model's schema as the JIT does (keyword arguments
too) and release the GIL while the model runs; one object may be called from
many threads at once (it keeps up to max_runtimes runtimes).

Errors: TypeError for arguments that do not fit the schema, ValueError for a
bad option, RuntimeError for a model the runtime cannot prepare (with the
check's list). A failing run raises what the failing node raised, as the JIT
does (IndexError, ValueError, TypeError, RuntimeError for LibTorch's errors,
ModelError, a torch.jit.Error and RuntimeError, for the model's own raise),
its message first and unchanged, then which node failed at which source line.
"""
import os
import sys
import time
import types

import torch

# From a checkout (PYTHONPATH=python after `bazel build
# //python:static_runtime`), the extension and the generated modules
# are in bazel-bin.
_BUILT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bazel-bin",
                      "python", "static_runtime")
if os.path.isdir(_BUILT):
    __path__.append(_BUILT)

from static_runtime import _build  # noqa: E402
from static_runtime._version import __version__  # noqa: E402


def _major_minor(version):
    return tuple(version.split("+")[0].split(".")[:2])


def _version_error(detail):
    return ImportError(
        f"static_runtime {__version__} was built for LibTorch {_build.LIBTORCH_VERSION}, but "
        f"this Python's torch is {torch.__version__} ({torch.__file__}): {detail}. Install the "
        "static_runtime built for this torch, or the torch it was built for.")


if _major_minor(torch.__version__) != _major_minor(_build.LIBTORCH_VERSION):
    raise _version_error("the versions differ")
try:
    from static_runtime import _static_runtime  # noqa: E402
except ImportError as error:
    raise _version_error(f"the extension does not load ({error})") from error

__all__ = ["StaticModule", "Pool", "IndividualMetrics", "ModelError", "to_static_module",
           "patch_torch", "unpatch_torch", "compare", "option_defaults", "option_descriptions",
           "standard_option_sets", "build_info", "__version__"]

# What a model's own raise gives: a torch.jit.Error and a RuntimeError.
ModelError = _static_runtime.ModelError


def option_defaults():
    """{option name: default} of every runtime option."""
    return dict(_static_runtime.option_defaults())


def option_descriptions():
    """{option name: what it does} of every runtime option (the C++ option
    table, options/options.h)."""
    return dict(_static_runtime.option_descriptions())


def standard_option_sets():
    """{name: options} of the standard option sets `sr verify` and the
    differential tests run under (verify/option_sets.h), without the one a
    Python StaticModule cannot take (manage_output_tensors needs one runtime
    per caller, which a pool is not); options given as they differ from the
    defaults."""
    defaults = option_defaults()
    return {name: {k: v for k, v in values.items() if v != defaults[k]}
            for name, values in _static_runtime.standard_option_sets()
            if not values["manage_output_tensors"]}


def build_info():
    """What this package was built with: its version, the LibTorch and oneDNN
    versions, the compiler, the Python version, and the options' defaults;
    and the matrix kernels this process runs: OpenBLAS's core
    (openblas_core, '' when LibTorch's BLAS is not OpenBLAS), the best core
    this CPU runs (best_openblas_core; OPENBLAS_CORETYPE picks it) and
    oneDNN's ISA (onednn_isa)."""
    info = dict(_static_runtime.build_info())
    info["version"] = __version__
    info["option_defaults"] = option_defaults()
    return info


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


class IndividualMetrics(types.SimpleNamespace):
    """What benchmark() and benchmark_individual_ops() return: the fields of
    PyTorch's StaticModule.IndividualMetrics (milliseconds: setup_time,
    memory_alloc_time, memory_dealloc_time, output_dealloc_time,
    first_iter_time; per run: total_time (the nodes' sum), time_per_node,
    time_per_node_type; percent_per_node_type, instances_per_node_type,
    out_nodes, out_nodes_count, total_nodes_count) and ours (ms_per_iter: a
    whole unobserved run; kernel_per_node_type; memory: the arena and the
    unmanaged values)."""


def _print_benchmark(metrics, num_inputs):
    """Prints `metrics` as PyTorch's StaticRuntime::benchmark does."""
    print(f"Input size: {num_inputs}")
    ms = metrics.ms_per_iter
    print(f"Static runtime ms per iter: {ms:.6g}. Iters per second: {1000.0 / ms:.6g}")
    print("Time per node type:")
    for kind, time_ms in sorted(metrics.time_per_node_type.items(), key=lambda kv: -kv[1]):
        instances = metrics.instances_per_node_type[kind]
        out = ", out variant" if kind in metrics.out_nodes else ""
        print(f"{time_ms:>15.6g} ms. {metrics.percent_per_node_type[kind]:>10.6g}%. {kind} "
              f"({instances} nodes{out})")
    print(f"{metrics.total_time:>15.6g} ms. in Total")
    print(f"StaticRuntime setup time: {metrics.setup_time:.6g} ms")
    print(f"Memory allocation time: {metrics.memory_alloc_time:.6g} ms")
    print(f"Memory deallocation time: {metrics.memory_dealloc_time:.6g} ms")
    print(f"Outputs deallocation time: {metrics.output_dealloc_time:.6g} ms")
    print(f"First iter time: {metrics.first_iter_time:.6g} ms")
    print(f"Number of operators: {metrics.total_nodes_count}")
    memory = metrics.memory
    print(f"Total number of managed tensors: {memory['managed_tensors']}")
    print(f"Total number of managed output tensors: {memory['output_tensors']}")
    print(f"Total number of unmanaged values: {memory['unmanaged_values']}")
    print(f"Total memory managed: {memory['arena_bytes']} bytes")
    print(f"Total number of reused tensors: {memory['reused_tensors']}")
    total = max(metrics.total_nodes_count, 1)
    print("Total number of 'out' variant nodes/total number of nodes: "
          f"{metrics.out_nodes_count}/{metrics.total_nodes_count} "
          f"({100.0 * metrics.out_nodes_count / total:.6g}%)")
    fallback = metrics.fallback_nodes_count
    print("Total number of nodes not covered by SR/total number of nodes: "
          f"{fallback}/{metrics.total_nodes_count} ({100.0 * fallback / total:.6g}%)")
    sys.stdout.flush()


class StaticModule:
    """A TorchScript module, function or graph prepared once for the static
    runtime: StaticModule(module_or_graph_or_function, *, frozen=False,
    sample_inputs=None, warmup=None, max_runtimes=8, shape_plans_per_kernel=None,
    **options).

    module_or_graph_or_function: a torch.jit.ScriptModule (torch.jit.script
    or torch.jit.load; frozen first unless frozen=True) or its ._c, a
    torch.jit.ScriptFunction, or a torch._C.Graph. sample_inputs: example
    arguments that size the memory plan before the first call. warmup: a
    list of argument tuples, each called once before the constructor
    returns, so that the first calls at those shapes do not pay for
    preparing them (kernel plans, weight layouts). max_runtimes: how many
    calls may run at once. shape_plans_per_kernel: the input shapes whose
    plans each cache of a kernel keeps (the least recently used dropped
    first; memory_stats() reports them; None: the C++ default, 64). Options (keyword arguments, True or False;
    option_defaults() gives the defaults):
"""

    def __init__(self, module_or_graph, *, frozen=False, sample_inputs=None, warmup=None,
                 max_runtimes=8, shape_plans_per_kernel=None, **options):
        options = _options(options)
        if shape_plans_per_kernel is not None and (isinstance(shape_plans_per_kernel, bool) or
                                                   not isinstance(shape_plans_per_kernel, int)):
            raise ValueError("shape_plans_per_kernel takes a number of input shapes, not "
                             f"{shape_plans_per_kernel!r}")
        samples = list(sample_inputs) if sample_inputs is not None else []
        if isinstance(module_or_graph, torch.jit.ScriptModule):
            module_or_graph = module_or_graph._c
        if isinstance(module_or_graph, torch.jit.ScriptFunction):
            module_or_graph = module_or_graph.graph
        if isinstance(module_or_graph, torch._C.ScriptModule):
            self._module = _static_runtime._Module.from_script_module(
                module_or_graph, frozen, options, shape_plans_per_kernel, samples, max_runtimes)
        elif isinstance(module_or_graph, torch._C.Graph):
            self._module = _static_runtime._Module.from_graph(
                _without_unused_self(module_or_graph), options, shape_plans_per_kernel, samples,
                max_runtimes)
        else:
            raise TypeError("StaticModule takes a torch.jit.ScriptModule (torch.jit.script or "
                            "torch.jit.load), a torch.jit.ScriptFunction or a torch._C.Graph, "
                            f"not {type(module_or_graph)}")
        for index, arguments in enumerate(warmup or []):
            if not isinstance(arguments, (tuple, list)):
                raise TypeError(f"warmup[{index}] must be a tuple of arguments, "
                                f"not {type(arguments).__name__}")
            try:
                self._module(*arguments)
            except Exception as error:  # its kind kept, the sample named
                error.add_note(f"(in the call of warmup[{index}])")
                raise
        if warmup:
            _static_runtime._wait_for_background_work()

    def __call__(self, *args, **kwargs):
        return self._module(*args, **kwargs)

    def runAsync(self, args, kwargs=None):  # noqa: N802 (PyTorch's name)
        """Starts a call on LibTorch's inter-op thread pool and returns its
        torch.futures.Future: wait() gives the result, or raises the error of
        the failing node (with its message unchanged)."""
        return self._module.run_async(tuple(args), dict(kwargs or {}))

    def benchmark(self, args, kwargs=None, warmup_runs=1, main_runs=10):
        """Times main_runs calls after warmup_runs on one runtime, then as many
        timing every node, and prints the report as PyTorch's benchmark does;
        returns the IndividualMetrics too."""
        metrics = self.benchmark_individual_ops(args, kwargs, warmup_runs, main_runs)
        _print_benchmark(metrics, len(args))
        return metrics

    def benchmark_individual_ops(self, args, kwargs=None, warmup_runs=1, main_runs=10):
        """benchmark() without printing: IndividualMetrics with PyTorch's fields."""
        metrics = IndividualMetrics(**self._module.benchmark(
            tuple(args), dict(kwargs or {}), warmup_runs, main_runs))
        metrics.fallback_nodes_count = self.kernel_counts()["fallback"]
        return metrics

    def explain(self):
        """The prepared graph, each node's kernel kind and why a node falls back."""
        return self._module.explain()

    def memory_stats(self, *args, **kwargs):
        """The memory the runtimes serving this module's calls hold between
        calls (after one more call on these arguments, when given): the
        keys of docs/memory.md's table, for the runtime with the largest
        arena, with how many runtimes there are and their arenas' total;
        once the work the calls left to the background thread is done (plans
        for input shapes just met, heap released after an arena grew)."""
        _static_runtime._wait_for_background_work()
        return self._module.memory_stats(*args, **kwargs)

    def kernel_counts(self):
        """{"out_variant": n, "native": n, "fallback": n} over the prepared graph."""
        return self._module.kernel_counts()

    def save_package(self, path, source=""):
        """Writes the prepared model as a compiled package (`sr compile`'s
        format; `source`: the model file it came from), which loads without
        running any pass."""
        self._module.save_package(os.fspath(path), os.fspath(source))


StaticModule.__doc__ += "".join(
    f"\n    {name} (default {option_defaults()[name]}): {text}"
    for name, text in sorted(option_descriptions().items())) + "\n"


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


def to_static_module(module_or_graph_or_function, **options):
    """What torch._C._jit_to_static_module does, on this runtime: a
    StaticModule of a torch.jit.ScriptModule (or its ._c; frozen first), a
    torch.jit.ScriptFunction or a torch._C.Graph, with the given options."""
    return StaticModule(module_or_graph_or_function, **options)


_PYTORCH_TO_STATIC_MODULE = torch._C._jit_to_static_module


def patch_torch():
    """Makes torch._C._jit_to_static_module return this runtime's
    StaticModule (opt-in), so code written for PyTorch's Static Runtime runs
    unchanged on this one; unpatch_torch() restores PyTorch's."""
    torch._C._jit_to_static_module = to_static_module


def unpatch_torch():
    """Restores PyTorch's own torch._C._jit_to_static_module."""
    torch._C._jit_to_static_module = _PYTORCH_TO_STATIC_MODULE


def _max_abs_difference(expected, actual):
    if isinstance(expected, torch.Tensor):
        return (expected.double() - actual.double()).abs().max().item() if expected.numel() else 0.0
    if isinstance(expected, (list, tuple)):
        return max([_max_abs_difference(e, a) for e, a in zip(expected, actual)], default=0.0)
    if isinstance(expected, dict):
        return max([_max_abs_difference(v, actual[k]) for k, v in expected.items()], default=0.0)
    return 0.0 if expected == actual else float("inf")


def compare(module, args, kwargs=None, iters=100, warmup=10, file=None, options=None):
    """Times the JIT, PyTorch's Static Runtime and ours (with `options`) on
    `args`, call by call interleaved in this process, prints a small table and
    returns {name: median milliseconds} with "max_abs_diff" (ours against the
    JIT)."""
    kwargs = kwargs or {}
    module = module.eval()
    try:
        jit = torch.jit.freeze(module)  # as both static runtimes freeze it
    except RuntimeError:  # already frozen
        jit = module
    ours = StaticModule(module, **(options or {}))
    psr = _PYTORCH_TO_STATIC_MODULE(module._c)
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
