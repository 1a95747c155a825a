"""The front door stays a front door and the docs state only what the code
says: README.md has at most 300 lines; every Markdown link in README.md and
docs/ points to a file of the repository; the status-code table of
docs/running.md lists exactly the codes errors/status_from_exception.h and
the runtime give; the CPU matrix's entries are the same in
tools/cpu_matrix.sh, .bazelrc's cpu_ configs and docs/bazel.md's table;
every test docs/compatibility.md cites (`Suite.Name` of a C++ test, a
Python `test_...`) exists; docs/benchmarks.md counts the broad corpus's
models as tools/bench_models/save_broad_corpus.py lists them, and
docs/verification.md the golden corpus's as golden/models/manifest.json lists them
and the mutants (its latest "N in all") as tools/mutants.json lists them.
(The pass table of docs/preparing.md is checked by //passes:pass_table_test,
the kernel list ops/README.md by //ops:coverage_test.)"""
import ast
import glob
import json
import os
import re
import unittest

ROOT = os.path.join(os.environ.get("TEST_SRCDIR", ""), os.environ.get("TEST_WORKSPACE", ""))
if not os.path.exists(os.path.join(ROOT, "README.md")):  # run by hand from a checkout
    ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def read(path):
    with open(os.path.join(ROOT, path)) as f:
        return f.read()


class DocsTest(unittest.TestCase):
    def test_readme_is_a_front_door(self):
        self.assertLessEqual(len(read("README.md").splitlines()), 300)

    def test_links_point_to_files(self):
        documents = ["README.md"] + sorted(
            os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))
        self.assertGreater(len(documents), 10)
        for document in documents:
            for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", read(document)):
                if re.match(r"[a-z]+://", target):
                    continue
                path = os.path.normpath(os.path.join(os.path.dirname(document), target))
                with self.subTest(document=document, link=target):
                    self.assertTrue(os.path.exists(os.path.join(ROOT, path)), path)

    def test_status_code_table_lists_the_codes_the_runtime_gives(self):
        table = re.findall(r"^\s*\| `(\w+)` \|", read("docs/running.md"), re.MULTILINE)
        classified = set(re.findall(r"absl::StatusCode::k(\w+)",
                                    read("errors/status_from_exception.h")))
        # Besides what the classifier gives: misuse and unrunnable models.
        self.assertEqual(set(table), classified | {"FailedPrecondition"})

    def test_broad_corpus_count_is_the_scripts(self):
        script = ast.parse(read("tools/bench_models/save_broad_corpus.py"))
        models = [node.value for node in script.body
                  if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                  and node.targets[0].id == "MODELS"][0]
        stated = re.search(r"save_broad_corpus.py` saves (\d+) real models",
                           read("docs/benchmarks.md"))
        self.assertIsNotNone(stated)
        self.assertEqual(int(stated.group(1)), len(models.keys))

    def test_golden_corpus_count_is_the_models_added(self):
        added = json.loads(read("golden/models/manifest.json"))
        stated = re.search(r"^  (\d+) models written as TorchScript source",
                           read("docs/verification.md"), re.MULTILINE)
        self.assertIsNotNone(stated)
        self.assertEqual(int(stated.group(1)), len(added))

    def test_mutant_count_is_the_lists(self):
        stated = re.findall(r"(\d+) in all", read("docs/verification.md"))
        self.assertTrue(stated)
        self.assertEqual(int(stated[-1]), len(json.loads(read("tools/mutants.json"))))

    def test_cpu_matrix_entries_agree(self):
        script = read("tools/cpu_matrix.sh")
        listed = script[script.index("ENTRIES=("):]
        entries = re.findall(r"^  (\w+) +#", listed[:listed.index("\n)\n")], re.MULTILINE)
        configs = re.findall(r"^test:cpu_(\w+) ", read(".bazelrc"), re.MULTILINE)
        section = read("docs/bazel.md").split("## The CPU matrix", 1)[1].split("\n## ", 1)[0]
        table = re.findall(r"^\| `(\w+)` \|", section, re.MULTILINE)
        self.assertGreaterEqual(len(entries), 4)
        self.assertEqual(entries, configs)
        self.assertEqual(entries, table)

    def test_serving_config_table_lists_the_keys_the_server_reads(self):
        document = read("docs/serving.md")
        section = document[document.index("### config.json"):document.index("## Inputs and outputs")]
        table = re.findall(r"^\| `(\w+)` \|", section, re.MULTILINE)
        source = read("server/model_config.cc")
        parser = source[source.index("absl::StatusOr<ModelConfig> ParseModelConfig("):]
        parsed = re.findall(r'key == "(\w+)"', parser)
        self.assertGreaterEqual(len(parsed), 6)
        self.assertEqual(sorted(table), sorted(parsed))

    def test_memory_stats_table_lists_the_keys_python_returns(self):
        document = read("docs/memory.md")
        section = document[document.index("### Python: `memory_stats()`"):]
        section = section.split("\n#", 1)[0]
        table = re.findall(r"^\| `(\w+)` \|", section, re.MULTILINE)
        source = read("python/bindings.cc")
        returned = []
        for function in ("py::dict MemoryStats(", "static py::dict MemoryDict("):
            body = source[source.index(function):]
            body = body[:body.index("\n  }\n")]
            returned += re.findall(r'out\["(\w+)"\] =', body)
        self.assertGreaterEqual(len(returned), 10)
        self.assertEqual(sorted(table), sorted(returned))

    def test_compatibility_cites_tests_that_exist(self):
        document = read("docs/compatibility.md")
        sources = "".join(read(path) for path in CITED_TEST_SOURCES)
        cited = re.findall(r"`([A-Z]\w*Test)\.(\w+)`", document)
        self.assertGreater(len(cited), 10)
        for suite, name in cited:
            with self.subTest(test=f"{suite}.{name}"):
                self.assertRegex(sources, rf"TEST\({suite}, {name}\)")
        for name in re.findall(r"`(test_\w+)`", document):
            with self.subTest(test=name):
                self.assertIn(f"def {name}(", sources)


# The test files docs/compatibility.md cites tests of.
CITED_TEST_SOURCES = [
    "ops/registry_test.cc",
    "passes/prepare_test.cc",
    "runtime/compatibility_test.cc",
    "python/tests/compatibility_test.py",
]


if __name__ == "__main__":
    unittest.main()
