#!/usr/bin/env python3
"""Compare static_runtime with PyTorch's own Static Runtime on one model.

Tooling only (needs Debian's python3-torch: apt-get install python3-torch).
For MODEL.pt and INPUTS.pt (a torch.save of a tuple or list of inputs) it
times, in one invocation and on one intra-op thread, the frozen TorchScript
module (JIT), PyTorch's Static Runtime (torch._C._jit_to_static_module) and
our runtime (`sr bench --json`), and prints the latency and memory ratios.
The JIT and PyTorch's Static Runtime are timed interleaved from Python, less
the time of calling a TorchScript function that does nothing with the same
arguments; `sr bench` times the JIT again in C++ beside our runtime.

  tools/compare_pytorch_sr.py MODEL.pt INPUTS.pt [--sr PATH] [--iters N]

PATH defaults to bazel-bin/tools/sr/sr (build it with
`bazel build //tools:sr`).
"""
import os

# One thread everywhere, set before PyTorch starts its pools.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time


def fail(message):
    print(f"compare_pytorch_sr: {message}", file=sys.stderr)
    sys.exit(1)


def interleaved_medians_us(functions, args, warmup, iters):
    """Median call time of each function, calls interleaved round-robin."""
    for _ in range(warmup):
        for fn in functions:
            fn(*args)
    samples = [[] for _ in functions]
    for _ in range(iters):
        for fn, times in zip(functions, samples):
            start = time.perf_counter()
            fn(*args)
            times.append((time.perf_counter() - start) * 1e6)
    return [statistics.median(times) for times in samples]


def python_call_overhead(torch, num_args):
    """A TorchScript function taking the same arguments and doing nothing:
    its call time is what calling from Python adds to the JIT's and PyTorch
    Static Runtime's times, and is subtracted from both."""
    params = ", ".join(f"a{i}: Any" for i in range(num_args))
    unit = torch.jit.CompilationUnit(f"def nothing({params}):\n    return 0\n")
    return unit.nothing


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("inputs")
    parser.add_argument("--sr", default="bazel-bin/tools/sr/sr")
    parser.add_argument("--iters", type=int, default=500)
    parser.add_argument("--warmup", type=int, default=50)
    options = parser.parse_args()
    try:
        import torch
    except ImportError:
        fail("needs PyTorch for Python: apt-get install python3-torch")
    if not os.access(options.sr, os.X_OK):
        fail(f"{options.sr} not found: bazel build //tools:sr")

    # Our runtime first, in its own process, while this one is still idle.
    with tempfile.TemporaryDirectory() as scratch:
        report_path = os.path.join(scratch, "report.json")
        command = [options.sr, "bench", options.model, f"--inputs={options.inputs}",
                   f"--iters={options.iters}", f"--warmup={options.warmup}",
                   f"--json={report_path}"]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            fail(f"sr bench failed: {result.stderr.strip()}")
        with open(report_path) as report_file:
            report = json.load(report_file)

    torch.set_num_threads(1)
    try:
        module = torch.jit.load(options.model).eval()
        inputs = torch.load(options.inputs)
    except Exception as error:  # one line, no traceback
        fail(f"cannot load the model or the inputs: {error}")
    args = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    try:
        frozen = torch.jit.freeze(module)
        pytorch_sr = torch._C._jit_to_static_module(frozen._c)
        pytorch_sr(*args)
    except Exception as error:
        fail(f"PyTorch cannot freeze or statically run the model: {error}")

    nothing = python_call_overhead(torch, len(args))
    jit_us, pytorch_sr_us, call_us = interleaved_medians_us(
        [frozen, pytorch_sr, nothing], args, options.warmup, options.iters)
    jit_us -= call_us
    pytorch_sr_us -= call_us

    ours_us = report["static_runtime"]["median_us"]
    print(f"model: {options.model}")
    print(f"(Python call overhead {call_us:.1f} us subtracted from the Python-side times)")
    print(f"{'':28}{'median (us)':>14}{'vs JIT':>10}")
    print(f"{'JIT (frozen, this process)':28}{jit_us:14.1f}{1.0:10.2f}")
    print(f"{'PyTorch Static Runtime':28}{pytorch_sr_us:14.1f}{pytorch_sr_us / jit_us:10.2f}")
    print(f"{'static_runtime (sr bench)':28}{ours_us:14.1f}{ours_us / jit_us:10.2f}")
    print(f"static_runtime / PyTorch Static Runtime: {ours_us / pytorch_sr_us:.2f}")
    print(f"sr bench's own JIT median: {report['jit']['median_us']:.1f} us "
          f"(ratio {report['ratio']:.2f})")
    memory = report["memory"]
    print(f"static_runtime arena: {memory['greedy_by_size_bytes']} B "
          f"(lower bound {memory['lower_bound_bytes']} B, storage groups "
          f"{memory['storage_groups_bytes']} B)")


if __name__ == "__main__":
    main()
