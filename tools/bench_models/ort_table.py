#!/usr/bin/env python3
"""The table of compare.sh --against=onnxruntime, from its scratch folder:
per model the rounds' `sr bench --json` reports (<model>.r<N>.json: ours,
the JIT and PyTorch SR, interleaved in one process) and ONNX Runtime's
(<model>.r<N>.ort, ort_bench.js). Each side's time is the median of its
rounds' medians. Prints model, ours, ORT, PyTorch SR, the JIT (us), ours/ORT,
PyTorch SR/ORT and ORT's max |ort - eager|; the geometric means over the
models ORT ran; the matrix kernels; then the notes (models not exported,
models PyTorch SR cannot run).

  tools/bench_models/ort_table.py DIR
"""
import collections
import glob
import json
import math
import os
import re
import statistics
import sys


def geomean(values):
    return math.exp(sum(map(math.log, values)) / len(values)) if values else float("nan")


def main(directory):
    ours, jit, psr, ort, diff = (collections.defaultdict(list) for _ in range(5))
    cores, turns = set(), set()
    for path in glob.glob(os.path.join(directory, "*.r*.json")):
        model = re.sub(r"\.r\d+\.json$", "", os.path.basename(path))
        with open(path) as f:
            report = json.load(f)
        ours[model].append(report["static_runtime"]["median_us"])
        jit[model].append(report["jit"]["median_us"])
        if report.get("pytorch_sr"):
            psr[model].append(report["pytorch_sr"]["median_us"])
        turns.add(report.get("turn", 1))
        cores.add((report["openblas_core"], report["best_openblas_core"], report["onednn_isa"]))
    for path in glob.glob(os.path.join(directory, "*.r*.ort")):
        model = re.sub(r"\.r\d+\.ort$", "", os.path.basename(path))
        with open(path) as f:
            report = json.load(f)
        ort[model].append(report["median_us"])
        diff[model].append(report["max_abs_diff"])

    def us(times):
        return f"{statistics.median(times):.1f}" if times else "-"

    print(f"{'model':<22}{'ours us':>10}{'ORT us':>10}{'PSR us':>10}{'JIT us':>10}"
          f"{'ours/ORT':>10}{'PSR/ORT':>9}{'ORT diff':>10}")
    ratios, psr_ratios = [], []
    for model in sorted(ours):
        ratio = psr_ratio = "-"
        if ort[model]:
            r = statistics.median(ours[model]) / statistics.median(ort[model])
            ratios.append(r)
            ratio = f"{r:.3f}"
            if psr[model]:
                p = statistics.median(psr[model]) / statistics.median(ort[model])
                psr_ratios.append(p)
                psr_ratio = f"{p:.2f}"
        max_diff = f"{max(diff[model]):.1e}" if diff[model] else "-"
        print(f"{model:<22}{us(ours[model]):>10}{us(ort[model]):>10}{us(psr[model]):>10}"
              f"{us(jit[model]):>10}{ratio:>10}{psr_ratio:>9}{max_diff:>10}")
    print(f"geomean ours/ORT: {geomean(ratios):.3f} over {len(ratios)} models; "
          f"PyTorch SR/ORT: {geomean(psr_ratios):.3f} over {len(psr_ratios)}")
    rounds = max((len(v) for v in ours.values()), default=0)
    print(f"{rounds} rounds of each side per model, alternated (ours then ORT); in sr bench "
          f"the sides took turns of {', '.join(map(str, sorted(turns)))} calls")
    for core, best, isa in sorted(cores):
        print(f"OpenBLAS core {core} (this CPU runs up to {best}), oneDNN {isa}")
    notes = os.path.join(directory, "notes")
    if os.path.exists(notes):
        with open(notes) as f:
            print(f.read(), end="")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
