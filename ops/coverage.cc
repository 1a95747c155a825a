#include "ops/coverage.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/core/registry.h"

namespace static_runtime {
namespace {

void AppendList(const std::vector<std::string>& ops, std::string& text) {
  for (const std::string& op : ops) absl::StrAppend(&text, "- `", op, "`\n");
}

}  // namespace

std::string CoverageMarkdown() {
  const KernelRegistry& registry = KernelRegistry::Global();
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
  return text;
}

}  // namespace static_runtime
