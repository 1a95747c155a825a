// CompilePointwiseGroup: the subgraph of a static_runtime::fused_pointwise
// node (passes/fuse_pointwise.h) as a PointwiseProgram over registers (the
// node's inputs, then one per subgraph node), the program the fused kernel
// (ops/elementwise/pointwise_fused.cc) evaluates. nullopt when some op has no formula
// that matches ATen's on this CPU (`evaluator`), a clamp bound or slope is
// not a float constant, or the group exceeds the program's limits.
// `output_of_instruction` gets, per instruction, the index of the node
// output it writes, or -1 (outputs not used after the group are not
// written).
#ifndef STATIC_RUNTIME_OPS_ELEMENTWISE_POINTWISE_COMPILE_H_
#define STATIC_RUNTIME_OPS_ELEMENTWISE_POINTWISE_COMPILE_H_

#include <cstdint>
#include <vector>

#include "c10/util/Optional.h"
#include "ops/elementwise/pointwise_eval.h"
#include "ops/elementwise/pointwise_program.h"
#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {
namespace ops {

c10::optional<PointwiseProgram> CompilePointwiseGroup(const torch::jit::Node* fused,
                                                      const PointwiseEvaluator& evaluator,
                                                      std::vector<int32_t>* output_of_instruction);

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_ELEMENTWISE_POINTWISE_COMPILE_H_
