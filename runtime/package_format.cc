#include "runtime/package_format.h"

#include "absl/strings/str_cat.h"

namespace static_runtime {
namespace package_format {

std::string KernelLines(const BlockPlan& block) {
  std::string lines;
  for (const NodePlan& node : block.nodes) {
    absl::StrAppend(&lines, node.info->position, " ",
                    IsControlFlow(node.kind) ? "control" : NodeKindName(node.kind), " ",
                    node.info->node->kind().toQualString(), "\n");
    for (const BlockPlan& sub_block : node.blocks) lines += KernelLines(sub_block);
  }
  return lines;
}

}  // namespace package_format
}  // namespace static_runtime
