#!/usr/bin/env python3
"""Draws the project's package dependency graph from the Bazel build graph.

Reads `bazel query --output=graph` over the project's libraries and binaries
(tests left out: they sit on top of everything; with --no-testonly the
benchmarks and test helpers too) and folds the rule-level edges into
package-level ones. Prints a summary (one line per package: what it depends
on, with the number of rule edges) or, with --dot, a Graphviz graph.

With --svg, draws the graph itself (no Graphviz needed): packages in rows
by layer, each above everything it depends on (its row is one more than the
highest row it depends on), edges as lines from a package down to its
dependencies with their rule counts.

Usage (from the workspace root):
  tools/package_graph.py [--no-testonly]
  tools/package_graph.py --dot --no-testonly > docs/packages.dot
  tools/package_graph.py --svg --no-testonly > docs/packages.svg
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


def layers(packages, edges):
    """Each package's row: 0 for one that depends on nothing, else one more
    than the highest row of what it depends on."""
    deps = collections.defaultdict(set)
    for src, dst in edges:
        deps[src].add(dst)
    row = {}

    def visit(package, path=()):
        if package in row:
            return row[package]
        if package in path:  # a cycle: drawn, not resolved
            return 0
        row[package] = 1 + max((visit(d, path + (package,)) for d in deps[package]), default=-1)
        return row[package]

    for package in packages:
        visit(package)
    return row


def svg(packages, edges):
    """The graph as SVG text: rows from the bottom (row 0) up."""
    row = layers(packages, edges)
    rows = collections.defaultdict(list)
    for package in sorted(packages):
        rows[row[package]].append(package)
    box_h, row_gap, col_gap, char_w, margin = 24, 70, 16, 7.2, 20
    widths = {p: len(p) * char_w + 16 for p in packages}
    row_w = {r: sum(widths[p] for p in ps) + col_gap * (len(ps) - 1) for r, ps in rows.items()}
    width = max(row_w.values()) + 2 * margin
    height = (max(rows) + 1) * (box_h + row_gap) - row_gap + 2 * margin
    pos = {}
    for r, ps in rows.items():
        x = margin + (width - 2 * margin - row_w[r]) / 2
        y = height - margin - box_h - r * (box_h + row_gap)
        for p in ps:
            pos[p] = (x, y)
            x += widths[p] + col_gap
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
           f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="Helvetica, Arial, sans-serif">',
           f'<rect width="{width:.0f}" height="{height:.0f}" fill="white"/>']
    for (src, dst), count in sorted(edges.items()):
        (sx, sy), (dx, dy) = pos[src], pos[dst]
        x1, y1 = sx + widths[src] / 2, sy + box_h
        x2, y2 = dx + widths[dst] / 2, dy
        out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
                   'stroke="#8899aa" stroke-width="1"/>')
        out.append(f'<text x="{(x1 + x2) / 2:.1f}" y="{(y1 + y2) / 2:.1f}" font-size="9" '
                   f'fill="#556677">{count}</text>')
    for p, (x, y) in sorted(pos.items()):
        out.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{widths[p]:.1f}" height="{box_h}" '
                   'fill="#f4f6fa" stroke="#334455"/>')
        out.append(f'<text x="{x + widths[p] / 2:.1f}" y="{y + 16:.1f}" font-size="12" '
                   f'text-anchor="middle">{p}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dot", action="store_true", help="print a Graphviz graph")
    parser.add_argument("--svg", action="store_true", help="print the graph drawn as SVG")
    parser.add_argument("--no-testonly", action="store_true",
                        help="leave out testonly rules (benchmarks, test helpers)")
    args = parser.parse_args()
    packages, edges = package_edges(args.no_testonly)
    if args.svg:
        sys.stdout.write(svg(packages, edges))
        return 0
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
