// The runtime's own cost per node, measured so that it cannot hide behind
// kernel time: two chains of native int additions (`x = x + 1`, N and N+M
// nodes) are run on the static runtime, and the slope (extra run time per
// extra node) minus the cost of the addition kernel itself, called directly
// in a loop, is the overhead of the block runner per node: fetching the node,
// its input and output slots and calling its kernel. Public: `sr profile`
// reports it, and so can a user checking the runtime on their machine.
#ifndef STATIC_RUNTIME_RUNTIME_NODE_OVERHEAD_H_
#define STATIC_RUNTIME_RUNTIME_NODE_OVERHEAD_H_

#include "absl/status/statusor.h"

namespace static_runtime {

struct NodeOverhead {
  double per_node_ns = 0;  // run time per extra node, minus the kernel's own time
  double slope_ns = 0;     // run time per extra node
  double kernel_ns = 0;    // one call of the addition kernel, called directly
};

absl::StatusOr<NodeOverhead> MeasureNodeOverhead();

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_RUNTIME_NODE_OVERHEAD_H_
