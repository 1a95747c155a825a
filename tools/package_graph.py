#!/usr/bin/env python3
"""Draws the project's package dependency graph from the Bazel build graph.

Reads `bazel query --output=graph` over the project's libraries and binaries
(tests left out: they sit on top of everything; with --no-testonly the
benchmarks and test helpers too) and folds the rule-level edges into
package-level ones. Prints a summary (one line per package: what it depends
on, with the number of rule edges) or, with --dot, a Graphviz graph.

Usage (from the workspace root):
  tools/package_graph.py [--no-testonly]
  tools/package_graph.py --dot --no-testonly > docs/packages.dot
  dot -Tsvg docs/packages.dot -o docs/packages.svg
"""
import argparse
import collections
import re
import subprocess
import sys

RULES = 'kind("cc_(library|binary)|py_library|py_binary", //...)'


def package_edges(no_testonly):
    rules = f"{RULES} except attr(testonly, 1, //...)" if no_testonly else RULES
    query = f"let rules = {rules} in deps($rules, 1) intersect $rules"
    out = subprocess.run(
        ["bazel", "query", query, "--output=graph", "--nograph:factored"],
        check=True, capture_output=True, text=True).stdout
    edges = collections.Counter()
    packages = set()
    for line in out.splitlines():
        m = re.match(r'\s*"(//[^:"]*):[^"]*"\s*->\s*"(//[^:"]*):[^"]*"', line)
        if m:
            src, dst = m.groups()
            packages.update((src, dst))
            if src != dst:
                edges[(src, dst)] += 1
            continue
        m = re.match(r'\s*"(//[^:"]*):[^"]*"\s*$', line)
        if m:
            packages.add(m.group(1))
    return packages, edges


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dot", action="store_true", help="print a Graphviz graph")
    parser.add_argument("--no-testonly", action="store_true",
                        help="leave out testonly rules (benchmarks, test helpers)")
    args = parser.parse_args()
    packages, edges = package_edges(args.no_testonly)
    if args.dot:
        print("digraph packages {")
        print('  rankdir=BT; node [shape=box, fontname="Helvetica"];')
        for package in sorted(packages):
            print(f'  "{package}";')
        for (src, dst), count in sorted(edges.items()):
            print(f'  "{src}" -> "{dst}" [label="{count}", fontsize=9];')
        print("}")
        return 0
    for package in sorted(packages):
        deps = sorted((dst, n) for (src, dst), n in edges.items() if src == package)
        print(f"{package}: " + ", ".join(f"{dst} ({n})" for dst, n in deps))
    return 0


if __name__ == "__main__":
    sys.exit(main())
