#include "passes/fuse_pointwise.h"

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "passes/operators.h"
#include "passes/pointwise_op.h"
#include "torch/csrc/jit/ir/constants.h"

namespace static_runtime {
namespace {

using torch::jit::Node;
using torch::jit::Value;

constexpr size_t kMaxGroupNodes = 32;

// What a fusible op needs of its constant arguments.
enum class Needs {
  kNothing,
  kAlphaOne,     // input 2 (alpha) the number 1
  kOneNumber,    // input 1 a number (leaky_relu's slope)
  kTwoNumbers,   // inputs 1 and 2 numbers (bounds)
  kApproximate,  // input 1 the string given (gelu's approximate)
};

struct FusibleSchema {
  const char* schema;
  PointwiseOp op;
  Needs needs = Needs::kNothing;
  const char* approximate = nullptr;
};

const std::vector<FusibleSchema>& FusibleSchemas() {
  static const std::vector<FusibleSchema> kSchemas = {
      {"aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
       PointwiseOp::kAdd, Needs::kAlphaOne},
      {"aten::add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", PointwiseOp::kAdd,
       Needs::kAlphaOne},
      {"aten::sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
       PointwiseOp::kSub, Needs::kAlphaOne},
      {"aten::sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", PointwiseOp::kSub,
       Needs::kAlphaOne},
      {"aten::mul.Tensor(Tensor self, Tensor other) -> Tensor", PointwiseOp::kMul},
      {"aten::mul.Scalar(Tensor self, Scalar other) -> Tensor", PointwiseOp::kMul},
      {"aten::div.Tensor(Tensor self, Tensor other) -> Tensor", PointwiseOp::kDiv},
      {"aten::div.Scalar(Tensor self, Scalar other) -> Tensor", PointwiseOp::kDiv},
      {"aten::neg(Tensor self) -> Tensor", PointwiseOp::kNeg},
      {"aten::abs(Tensor self) -> Tensor", PointwiseOp::kAbs},
      {"aten::relu(Tensor self) -> Tensor", PointwiseOp::kRelu},
      {"aten::sigmoid(Tensor self) -> Tensor", PointwiseOp::kSigmoid},
      {"aten::tanh(Tensor self) -> Tensor", PointwiseOp::kTanh},
      {"aten::exp(Tensor self) -> Tensor", PointwiseOp::kExp},
      {"aten::log(Tensor self) -> Tensor", PointwiseOp::kLog},
      {"aten::sqrt(Tensor self) -> Tensor", PointwiseOp::kSqrt},
      {"aten::rsqrt(Tensor self) -> Tensor", PointwiseOp::kRsqrt},
      {"aten::silu(Tensor self) -> Tensor", PointwiseOp::kSilu},
      {"aten::gelu(Tensor self, *, str approximate='none') -> Tensor", PointwiseOp::kGelu,
       Needs::kApproximate, "none"},
      {"aten::gelu(Tensor self, *, str approximate='none') -> Tensor", PointwiseOp::kGeluTanh,
       Needs::kApproximate, "tanh"},
      {"aten::hardswish(Tensor self) -> Tensor", PointwiseOp::kHardswish},
      {"aten::hardsigmoid(Tensor self) -> Tensor", PointwiseOp::kHardsigmoid},
      {"aten::leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor",
       PointwiseOp::kLeakyRelu, Needs::kOneNumber},
      {"aten::clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
       PointwiseOp::kClamp, Needs::kTwoNumbers},
      {"aten::hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor",
       PointwiseOp::kClamp, Needs::kTwoNumbers},
  };
  return kSchemas;
}

// Why `node`'s constant arguments do not suit `schema` ("" when they do).
std::string WhyNotSuited(const Node* node, const FusibleSchema& schema,
                         const ConstantOf& constant_of) {
  auto number = [&](size_t i) {
    const c10::optional<c10::IValue> constant = constant_of(node->input(i));
    return constant && (constant->isDouble() || constant->isInt());
  };
  switch (schema.needs) {
    case Needs::kNothing:
      return "";
    case Needs::kAlphaOne: {
      const c10::optional<c10::IValue> alpha = constant_of(node->input(2));
      const bool one = alpha && ((alpha->isInt() && alpha->toInt() == 1) ||
                                 (alpha->isDouble() && alpha->toDouble() == 1.0));
      return one ? "" : "its alpha is not the constant 1";
    }
    case Needs::kOneNumber:
      return number(1) ? "" : "its slope is not a constant number";
    case Needs::kTwoNumbers:
      return number(1) && number(2) ? "" : "its bounds are not two constant numbers";
    case Needs::kApproximate: {
      const c10::optional<c10::IValue> approximate = constant_of(node->input(1));
      return approximate && approximate->isString() &&
                     approximate->toStringRef() == schema.approximate
                 ? ""
                 : "its approximate is not a constant 'none' or 'tanh'";
    }
  }
  return "";
}

// The op `node` is, or why none (in *why).
c10::optional<PointwiseOp> Match(const Node* node, const ConstantOf& constant_of,
                                 std::string* why) {
  if (node->outputs().size() != 1 || node->output()->type()->kind() != c10::TypeKind::TensorType) {
    *why = "it does not return one tensor";
    return c10::nullopt;
  }
  *why = "not an elementwise op the fusion handles";
  for (const FusibleSchema& schema : FusibleSchemas()) {
    if (!node->matches(schema.schema)) continue;
    std::string reason = WhyNotSuited(node, schema, constant_of);
    if (reason.empty()) {
      why->clear();
      return schema.op;
    }
    *why = std::move(reason);
  }
  return c10::nullopt;
}

c10::optional<c10::IValue> ConstantInGraph(const Value* value) {
  return torch::jit::toIValue(value);
}

}  // namespace

c10::optional<PointwiseOp> PointwiseOpOf(const Node* node, const ConstantOf& constant_of) {
  std::string why;
  return Match(node, constant_of, &why);
}

std::string WhyNotFusible(const Node* node) {
  std::string why;
  Match(node, ConstantInGraph, &why);
  return why;
}

namespace {

// Replaces the run `nodes` (consecutive in one block) by one fused node.
// Its inputs are every value the run uses from outside (constants
// included); its outputs are the run's values used after it, then the
// others, so that the kernel can run the nodes one by one on the runtime's
// own slots when the fused form does not apply.
void FuseRun(const std::vector<Node*>& nodes) {
  torch::jit::Graph* graph = nodes.front()->owningGraph();
  auto subgraph = std::make_shared<torch::jit::Graph>();
  absl::flat_hash_set<const Node*> in_run(nodes.begin(), nodes.end());
  std::unordered_map<Value*, Value*> inner;  // outer value -> subgraph value
  std::vector<Value*> outer_inputs;
  auto map_input = [&](Value* outer) -> Value* {
    auto found = inner.find(outer);
    if (found != inner.end()) return found->second;
    Value* value = subgraph->addInput()->setType(outer->type());
    outer_inputs.push_back(outer);
    inner.emplace(outer, value);
    return value;
  };
  for (Node* node : nodes) {
    Node* clone = subgraph->createClone(node, map_input);
    subgraph->insertNode(clone);
    inner[node->output()] = clone->output();
  }
  std::vector<Value*> used_after;
  std::vector<Value*> internal;
  for (Node* node : nodes) {
    Value* output = node->output();
    bool used = false;
    for (const torch::jit::Use& use : output->uses()) used = used || !in_run.contains(use.user);
    (used ? used_after : internal).push_back(output);
  }
  std::vector<Value*> outer_outputs = used_after;
  outer_outputs.insert(outer_outputs.end(), internal.begin(), internal.end());
  for (Value* output : outer_outputs) subgraph->registerOutput(inner.at(output));
  Node* fused = graph->create(ops::kFusedPointwise, outer_inputs, outer_outputs.size());
  fused->g_(c10::attr::Subgraph, subgraph);
  fused->i_(ops::kUsedOutputs, static_cast<int64_t>(used_after.size()));
  // After the run: every user outside it comes later, every value the run
  // uses (constants between its nodes too) is defined by then.
  fused->insertAfter(nodes.back());
  for (size_t i = 0; i < outer_outputs.size(); ++i) {
    fused->output(i)->setType(outer_outputs[i]->type());
    outer_outputs[i]->replaceAllUsesWith(fused->output(i));
  }
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) (*it)->destroy();
}

bool FuseBlock(torch::jit::Block* block) {
  bool changed = false;
  std::vector<std::vector<Node*>> runs;
  std::vector<Node*> run;
  absl::flat_hash_set<const Value*> produced;
  auto close_run = [&] {
    if (run.size() >= 2) runs.push_back(run);
    run.clear();
    produced.clear();
  };
  for (Node* node : block->nodes()) {
    for (torch::jit::Block* sub_block : node->blocks()) changed |= FuseBlock(sub_block);
    if (node->kind() == c10::prim::Constant) continue;  // constants do not break a run
    if (!WhyNotFusible(node).empty()) {
      close_run();
      continue;
    }
    bool uses_run = false;
    for (const Value* input : node->inputs()) uses_run = uses_run || produced.contains(input);
    if (!uses_run || run.size() == kMaxGroupNodes) close_run();
    run.push_back(node);
    produced.insert(node->output());
  }
  close_run();
  for (const std::vector<Node*>& nodes : runs) FuseRun(nodes);
  return changed || !runs.empty();
}

}  // namespace

bool FusePointwise(const std::shared_ptr<torch::jit::Graph>& graph) {
  ops::EnsureOperatorsRegistered();
  return FuseBlock(graph->block());
}

}  // namespace static_runtime
