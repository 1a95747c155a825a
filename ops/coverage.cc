#include "ops/coverage.h"

#include <fstream>
#include <map>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ops/core/registry.h"
#include "ops/kernels.h"

namespace static_runtime {
namespace {

void AppendList(const std::vector<std::string>& ops, std::string& text) {
  for (const std::string& op : ops) absl::StrAppend(&text, "- `", op, "`\n");
}

// "aten::add.Tensor" of "aten::add.Tensor(Tensor self, ...) -> Tensor".
std::string OperatorName(const std::string& op) { return op.substr(0, op.find('(')); }

// The tests beside `file` (<dir>/<stem>.cc or .h): <stem>_test.cc and
// <stem>_*_test.cc in its directory.
std::vector<std::string> TestsBeside(const std::string& file,
                                     const std::vector<std::string>& source_files) {
  const std::string stem = file.substr(0, file.rfind('.'));
  std::vector<std::string> tests;
  for (const std::string& source : source_files) {
    if (source == stem + "_test.cc" ||
        (absl::StartsWith(source, stem + "_") && absl::EndsWith(source, "_test.cc") &&
         source.find('/', stem.size()) == std::string::npos)) {
      tests.push_back(source);
    }
  }
  return tests;
}

// "## Where the kernels are": each file that registers kernels, the tests
// beside it and its kernels by kind.
void AppendMap(const std::vector<std::string>& source_files, std::string& text) {
  std::map<std::string, std::map<NodeKind, std::vector<std::string>>> by_file;
  for (const KernelRegistry::RegisteredKernel& kernel : GlobalKernels().Kernels()) {
    by_file[kernel.file][kernel.kind].push_back(
        absl::StrCat("`", OperatorName(kernel.op), "`", kernel.bounded ? " (bounded)" : ""));
  }
  std::map<std::string, std::vector<std::string>> tests_beside;
  int without_test = 0;
  for (const auto& [file, kernels] : by_file) {
    tests_beside[file] = TestsBeside(file, source_files);
    if (tests_beside[file].empty()) ++without_test;
  }
  absl::StrAppend(&text, "\n## Where the kernels are\n\n", by_file.size(),
                  " files register kernels; ", without_test,
                  " have no test of their own beside them (their kernels are covered by\n"
                  "the tests over every family: `//ops:out_variant_property_test` for out\n"
                  "variants, `//ops:registry_test` and the differential tests). (bounded): the\n"
                  "kernel declares an error bound (see docs/verification.md).\n");
  for (const auto& [file, kernels] : by_file) {
    const std::vector<std::string>& tests = tests_beside[file];
    absl::StrAppend(
        &text, "\n### `", file, "`\n\n- test: ",
        tests.empty() ? "none beside it" : absl::StrCat("`", absl::StrJoin(tests, "`, `"), "`"),
        "\n");
    for (const auto& [kind, ops] : kernels) {
      absl::StrAppend(&text, "- ", NodeKindName(kind), ": ", absl::StrJoin(ops, ", "), "\n");
    }
  }
}

}  // namespace

std::vector<std::string> ReadKernelSources() {
  std::vector<std::string> files;
  std::ifstream list("ops/kernel_sources.txt");
  for (std::string line; std::getline(list, line);) {
    if (!line.empty()) files.push_back(line);
  }
  return files;
}

std::string CoverageMarkdown(const std::vector<std::string>& source_files) {
  const KernelRegistry& registry = GlobalKernels();
  const std::vector<std::string> out = registry.Registered(NodeKind::kOutVariant);
  const std::vector<std::string> native = registry.Registered(NodeKind::kNative);
  std::string text = absl::StrCat(
      "# Kernel coverage\n\n"
      "Generated from the kernel registry by `bazel run //ops:coverage -- --write`;\n"
      "`//ops:coverage_test` fails when this file and the registry disagree.\n\n"
      "A kernel is chosen for a node only when the node's operator schema is exactly\n"
      "the one listed (or, for entries without a signature, the node is of that kind\n"
      "and the kernel accepts its overload). Every other node runs in fallback: the\n"
      "JIT's own operator, or the JIT interpreter for nodes without one.\n\n"
      "## Out variants (",
      out.size(),
      ")\n\n"
      "They write into an output tensor the runtime owns and reuses. Each has a\n"
      "RapidCheck property in `//ops:out_variant_property_test`.\n\n");
  AppendList(out, text);
  absl::StrAppend(&text, "\n## Native kernels (", native.size(),
                  ")\n\nThey compute directly on the value slots (no stack, no boxing).\n\n");
  AppendList(native, text);
  absl::StrAppend(&text,
                  "\n## Deliberately in fallback\n\n"
                  "- `aten::conv1d/conv2d`, `aten::_convolution`, and `aten::conv3d` whose weight\n"
                  "  is not a constant: LibTorch 1.13 has no out form for the CPU convolutions\n"
                  "  (with constant weights, conv1d and conv2d become\n"
                  "  `static_runtime::conv2d_fused`, and conv3d has the out variant above).\n"
                  "- `aten::embedding_bag` in max mode, with per-sample weights, or when its\n"
                  "  offset2bag/bag_size/max_indices outputs are used: the out variant computes\n"
                  "  only the pooled output.\n"

                  "- `aten::dot`, `aten::mv`, `aten::flip`, `aten::prod` of all elements:\n"
                  "  LibTorch 1.13's out forms compute into a temporary and copy,\n"
                  "  which saves nothing (`//ops:out_variant_property_test` checks that every\n"
                  "  out variant allocates less than the JIT's operator).\n"
                  "- `aten::narrow_copy`: LibTorch 1.13's implementation ignores the strides of\n"
                  "  non-contiguous inputs; the runtime must return what the JIT returns.\n"
                  "- `aten::tensor` of a list (nested Python data): the JIT's own conversion of\n"
                  "  nested lists; its scalar overloads are native.\n"
                  "\nView ops are native kernels (their outputs alias their inputs, so they are\n"
                  "never given runtime-owned memory), as are in-place ops.\n");
  AppendMap(source_files, text);
  return text;
}

}  // namespace static_runtime
