#!/usr/bin/env python3
"""Prints shape_sweep.sh's table from the `sr sweep --json` reports in DIR
(<model>.<side>.<round>.json): per shape, the median over rounds of each
side's first and steady call and of the background work our first call
left (`ours bg`: waited for before the steady calls); per model, the resident memory the shapes
added (after every shape's calls, and after the random calls, less the
resident memory after preparation).

  shape_sweep_table.py DIR MODEL...
"""
import glob
import json
import os
import statistics
import sys


def reports(directory, model, side):
    paths = sorted(glob.glob(os.path.join(directory, f"{model}.{side}.*.json")))
    return [json.load(open(path)) for path in paths]


def median_of(runs, key, index=None):
    values = [run["shapes"][index][key] if index is not None else run[key] for run in runs]
    return statistics.median(values)


def main(directory, models):
    for model in models:
        ours, theirs = reports(directory, model, "ours"), reports(directory, model, "pytorch-sr")
        if not ours or not theirs:
            print(f"{model}: no reports")
            continue
        print(f"\n{model} ({len(ours)} rounds each; ms, MiB)")
        print(f"  {'shape':<42} {'ours 1st':>9} {'PSR 1st':>9} {'ours bg':>9} {'ours st':>9}"
              f" {'PSR st':>9} {'ours/PSR':>8} {'1st/st':>7} {'ours +MiB':>9} {'PSR +MiB':>9}")
        for i, shape in enumerate(ours[0]["shapes"]):
            row = [median_of(ours, "first_ms", i), median_of(theirs, "first_ms", i),
                   median_of(ours, "steady_ms", i), median_of(theirs, "steady_ms", i)]
            settle = median_of(ours, "settle_ms", i)
            print(f"  {shape['shape']:<42} {row[0]:9.2f} {row[1]:9.2f} {settle:9.1f} {row[2]:9.3f}"
                  f" {row[3]:9.3f} {row[2] / row[3]:8.2f} {row[0] / row[2]:7.1f}"
                  f" {median_of(ours, 'first_added_mib', i):9.1f}"
                  f" {median_of(theirs, 'first_added_mib', i):9.1f}")
        for label, key in [("after every shape", "after_shapes_mib"),
                           (f"after {ours[0]['random_calls']} random calls", "after_random_mib")]:
            added = [median_of(side, key) - median_of(side, "prepared_mib") for side in (ours, theirs)]
            print(f"  resident added {label}: ours {added[0]:.1f} MiB, PyTorch SR {added[1]:.1f} MiB")
        print(f"  resident after preparation: ours {median_of(ours, 'prepared_mib'):.1f} MiB, "
              f"PyTorch SR {median_of(theirs, 'prepared_mib'):.1f} MiB")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])
