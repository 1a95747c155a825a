#!/usr/bin/env python3
"""Mutation testing: how many small, realistic bugs do the tests catch?

  tools/mutate.py [--mutants FILE] [--scratch DIR] [--only NAME,...]
                  [--targets TARGETS] [--list]

Each mutant of FILE (default tools/mutants.json: a list of objects with
"name", "file", "find", "replace", "why" and optionally "flags", Bazel
flags its tests run with, e.g. ["--config=tsan"] for a race that only
ThreadSanitizer sees) is applied alone to a scratch
copy of this checkout (default /tmp/static_runtime_mutation, made or
refreshed by copying, so Bazel builds it incrementally), then the tests run
there (`bazel test --keep_going TARGETS`, default //...). A mutant is
killed when a test fails, survives when every test passes, and is
stillborn when it does not build (a mutant must compile to count); the
tests must pass on the scratch copy before any mutant is applied. `find`
must occur exactly once in its file. A mutant of two guards at once has
"edits", a list of {"find", "replace"} applied in order, in place of its
own find and replace. The report lists every mutant's fate
and the kill rate over the mutants that built; the exit status is 0 only
if every mutant was killed. The scratch copy is restored after each one.

--list prints the mutants and checks that each applies, without building.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def load_mutants(path, only):
    with open(path) as f:
        mutants = json.load(f)
    names = [m["name"] for m in mutants]
    if len(names) != len(set(names)):
        sys.exit(f"mutate: {path} names a mutant twice")
    if only:
        wanted = set(only.split(","))
        unknown = wanted - set(names)
        if unknown:
            sys.exit(f"mutate: no mutant named {', '.join(sorted(unknown))}")
        mutants = [m for m in mutants if m["name"] in wanted]
    return mutants


def edits_of(mutant):
    """The mutant's (find, replace) pairs: its own, or those of "edits"."""
    if "edits" in mutant:
        return [(edit["find"], edit["replace"]) for edit in mutant["edits"]]
    return [(mutant["find"], mutant["replace"])]


def mutated(root, mutant):
    """The mutated text of the mutant's file under `root`, or an error."""
    with open(os.path.join(root, mutant["file"])) as f:
        text = f.read()
    changed = text
    for find, replace in edits_of(mutant):
        count = changed.count(find)
        if count != 1:
            raise ValueError(f"{mutant['name']}: its text occurs {count} times in {mutant['file']}")
        changed = changed.replace(find, replace)
    return text, changed


def sync_scratch(scratch):
    """Copies the checkout (not .git or Bazel's links) over the scratch copy;
    Bazel rebuilds only what changed (it compares contents)."""
    shutil.copytree(ROOT, scratch, dirs_exist_ok=True, symlinks=True,
                    ignore=shutil.ignore_patterns(".git", "bazel-*"))


def run_tests(scratch, targets, flags=()):
    """'killed', 'survived' or 'stillborn', and the seconds it took."""
    start = time.time()
    result = subprocess.run(["bazel", "test", "--keep_going"] + list(flags) + targets.split(),
                            cwd=scratch,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    seconds = time.time() - start
    if result.returncode == 0:
        return "survived", seconds, ""
    # Bazel's exit code 1: the build failed; 3: built, some tests failed.
    if result.returncode == 1:
        return "stillborn", seconds, ""
    failed = [line.split()[0] for line in result.stdout.splitlines()
              if line.startswith("//") and ("FAILED" in line or "TIMEOUT" in line)]
    return "killed", seconds, " ".join(failed[:3])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mutants", default=os.path.join(ROOT, "tools", "mutants.json"))
    parser.add_argument("--scratch", default="/tmp/static_runtime_mutation")
    parser.add_argument("--only", default="")
    parser.add_argument("--targets", default="//...")
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    mutants = load_mutants(args.mutants, args.only)
    for mutant in mutants:
        try:
            mutated(ROOT, mutant)
        except ValueError as error:
            sys.exit(f"mutate: {error}")
    if args.list:
        for mutant in mutants:
            print(f"{mutant['name']:<40} {mutant['file']}: {mutant['why']}")
        print(f"{len(mutants)} mutants, each applies once")
        return 0

    sync_scratch(args.scratch)
    # Unmutated, every test must pass under each mutant's flags: else every
    # mutant would look killed.
    for flags in sorted({tuple(mutant.get("flags", [])) for mutant in mutants}):
        fate, seconds, by = run_tests(args.scratch, args.targets, flags)
        label = f"(no mutant{', ' if flags else ''}{' '.join(flags)})"
        print(f"{'baseline':<10} {label:<40} {seconds:6.0f} s  {by}", flush=True)
        if fate != "survived":
            sys.exit(f"mutate: the tests do not pass without a mutant ({fate}): fix that first")
    fates = {}
    for mutant in mutants:
        path = os.path.join(args.scratch, mutant["file"])
        original, changed = mutated(args.scratch, mutant)
        with open(path, "w") as f:
            f.write(changed)
        try:
            fate, seconds, by = run_tests(args.scratch, args.targets, mutant.get("flags", []))
        finally:
            with open(path, "w") as f:
                f.write(original)
        fates[mutant["name"]] = fate
        print(f"{fate:<10} {mutant['name']:<40} {seconds:6.0f} s  {by}", flush=True)

    built = [name for name, fate in fates.items() if fate != "stillborn"]
    killed = [name for name in built if fates[name] == "killed"]
    survivors = [name for name in built if fates[name] == "survived"]
    stillborn = [name for name, fate in fates.items() if fate == "stillborn"]
    rate = 100.0 * len(killed) / len(built) if built else 0.0
    print(f"{len(killed)} of {len(built)} mutants killed ({rate:.1f}%)"
          + (f"; {len(stillborn)} did not build: {', '.join(stillborn)}" if stillborn else ""))
    if survivors:
        print("survivors: " + ", ".join(survivors))
    return 0 if not survivors and not stillborn else 1


if __name__ == "__main__":
    sys.exit(main())
