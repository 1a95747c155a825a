#include "ops/elementwise/pointwise_compile.h"

#include <cmath>
#include <limits>

#include "absl/container/flat_hash_map.h"
#include "ir/operators/operators.h"
#include "ir/operators/pointwise_match.h"
#include "torch/csrc/jit/ir/constants.h"

namespace static_runtime {
namespace ops {
namespace {

using torch::jit::Node;
using torch::jit::Value;

// A clamp bound or leaky_relu slope (a constant outside the group) as ATen
// converts it to float (it rejects a finite double beyond float's range;
// such a group is left to the unfused path).
c10::optional<float> FloatBound(const Value* value) {
  const c10::optional<c10::IValue> constant = torch::jit::toIValue(value);
  if (!constant || !(constant->isDouble() || constant->isInt())) return c10::nullopt;
  const double bound = constant->toScalar().toDouble();
  if (std::isfinite(bound) && std::abs(bound) > std::numeric_limits<float>::max()) {
    return c10::nullopt;
  }
  return static_cast<float>(bound);
}

}  // namespace

c10::optional<PointwiseProgram> CompilePointwiseGroup(const Node* fused,
                                                      const PointwiseEvaluator& evaluator,
                                                      std::vector<int32_t>* output_of_instruction) {
  const torch::jit::Graph& subgraph = *fused->g(c10::attr::Subgraph);
  PointwiseProgram program;
  absl::flat_hash_map<const Value*, int32_t> reg;
  for (const Value* input : subgraph.inputs()) reg.emplace(input, reg.size());
  // The fused node's input that a subgraph input stands for.
  auto outer = [&](const Value* inner) { return fused->input(reg.at(inner)); };
  program.num_inputs = static_cast<int32_t>(reg.size());
  if (program.num_inputs > kMaxPointwiseInputs) return c10::nullopt;
  auto constant_of = [&](const Value* inner) { return torch::jit::toIValue(outer(inner)); };
  for (const Node* node : subgraph.nodes()) {
    const c10::optional<PointwiseOp> op = PointwiseOpOf(node, constant_of);
    if (!op || !evaluator.matches[static_cast<int>(*op)]) return c10::nullopt;
    PointwiseInstruction instruction;
    instruction.op = *op;
    instruction.vector_tail = evaluator.vector_tail[static_cast<int>(*op)];
    instruction.split_free = evaluator.split_free[static_cast<int>(*op)];
    if (*op == PointwiseOp::kWhere) {  // where(condition, self, other)
      instruction.c = reg.at(node->input(0));
      instruction.a = reg.at(node->input(1));
      instruction.b = reg.at(node->input(2));
    } else {
      instruction.a = reg.at(node->input(0));
      if (NumOperands(*op) >= 2) instruction.b = reg.at(node->input(1));
      if (NumOperands(*op) == 3) instruction.c = reg.at(node->input(2));
    }
    if (*op == PointwiseOp::kClamp) {
      const c10::optional<float> lo = FloatBound(outer(node->input(1)));
      const c10::optional<float> hi = FloatBound(outer(node->input(2)));
      if (!lo || !hi) return c10::nullopt;
      instruction.lo = *lo;
      instruction.hi = *hi;
    } else if (*op == PointwiseOp::kClampMin || *op == PointwiseOp::kClampMax) {
      // clamp(self, min, max) has one of its bounds; clamp_min and
      // clamp_max have theirs at input 1.
      const bool upper_of_clamp = *op == PointwiseOp::kClampMax && node->inputs().size() == 3;
      const c10::optional<float> bound = FloatBound(outer(node->input(upper_of_clamp ? 2 : 1)));
      if (!bound) return c10::nullopt;
      (*op == PointwiseOp::kClampMin ? instruction.lo : instruction.hi) = *bound;
    } else if (*op == PointwiseOp::kLeakyRelu) {
      const c10::optional<float> slope = FloatBound(outer(node->input(1)));
      if (!slope) return c10::nullopt;
      instruction.lo = *slope;
    }
    reg.emplace(node->output(), program.num_inputs + program.code.size());
    program.code.push_back(instruction);
  }
  if (program.code.size() > static_cast<size_t>(kMaxPointwiseInstructions)) {
    return c10::nullopt;
  }
  // Only the outputs used after the group are written (the others are for
  // the unfused path).
  output_of_instruction->assign(program.code.size(), -1);
  const size_t used = static_cast<size_t>(fused->i(kUsedOutputs));
  for (size_t i = 0; i < used; ++i) {
    (*output_of_instruction)[reg.at(subgraph.outputs()[i]) - program.num_inputs] =
        static_cast<int32_t>(i);
  }
  return program;
}

}  // namespace ops
}  // namespace static_runtime
