#include "passes/fuse_pointwise.h"

#include <algorithm>
#include <functional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_join.h"
#include "passes/operators.h"
#include "passes/pointwise_op.h"
#include "torch/csrc/jit/ir/alias_analysis.h"
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
  kConversion,   // input 1 the schema's dtype, no memory format
};

struct FusibleSchema {
  const char* schema;
  PointwiseOp op;
  Needs needs = Needs::kNothing;
  const char* approximate = nullptr;
  at::ScalarType dtype = at::kFloat;  // of a conversion
};

// aten::to.dtype, and the same op after UseMaybeCopyTo (passes/maybe_copy_to.h).
constexpr const char* kConversionSchemas[] = {
    "aten::to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, "
    "bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)",
    "static_runtime::maybe_copy_to.dtype(Tensor(a) self, ScalarType dtype, "
    "bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)",
};

const std::vector<FusibleSchema>& FusibleSchemas() {
  static const std::vector<FusibleSchema> kSchemas = [] {
    std::vector<FusibleSchema> schemas = {
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
        {"aten::gt.Tensor(Tensor self, Tensor other) -> Tensor", PointwiseOp::kGt},
        {"aten::gt.Scalar(Tensor self, Scalar other) -> Tensor", PointwiseOp::kGt},
        {"aten::lt.Tensor(Tensor self, Tensor other) -> Tensor", PointwiseOp::kLt},
        {"aten::lt.Scalar(Tensor self, Scalar other) -> Tensor", PointwiseOp::kLt},
        {"aten::ge.Tensor(Tensor self, Tensor other) -> Tensor", PointwiseOp::kGe},
        {"aten::ge.Scalar(Tensor self, Scalar other) -> Tensor", PointwiseOp::kGe},
        {"aten::le.Tensor(Tensor self, Tensor other) -> Tensor", PointwiseOp::kLe},
        {"aten::le.Scalar(Tensor self, Scalar other) -> Tensor", PointwiseOp::kLe},
        {"aten::eq.Tensor(Tensor self, Tensor other) -> Tensor", PointwiseOp::kEq},
        {"aten::eq.Scalar(Tensor self, Scalar other) -> Tensor", PointwiseOp::kEq},
        {"aten::ne.Tensor(Tensor self, Tensor other) -> Tensor", PointwiseOp::kNe},
        {"aten::ne.Scalar(Tensor self, Scalar other) -> Tensor", PointwiseOp::kNe},
        {"aten::where.self(Tensor condition, Tensor self, Tensor other) -> Tensor",
         PointwiseOp::kWhere},
        {"aten::where.ScalarSelf(Tensor condition, Scalar self, Tensor other) -> Tensor",
         PointwiseOp::kWhere},
        {"aten::where.ScalarOther(Tensor condition, Tensor self, Scalar other) -> Tensor",
         PointwiseOp::kWhere},
        {"aten::masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor",
         PointwiseOp::kMaskedFill},
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
    for (const char* conversion : kConversionSchemas) {
      for (const auto& [op, dtype] :
           {std::pair{PointwiseOp::kToFloat, at::kFloat},
            std::pair{PointwiseOp::kToBool, at::kBool}, std::pair{PointwiseOp::kToInt32, at::kInt},
            std::pair{PointwiseOp::kToInt64, at::kLong}}) {
        schemas.push_back({conversion, op, Needs::kConversion, nullptr, dtype});
      }
    }
    return schemas;
  }();
  return kSchemas;
}

c10::optional<PointwiseOp> Match(const Node* node, const ConstantOf& constant_of, std::string* why);

// The result type of a tensor `op` gives whatever its operands (bool for a
// comparison, the target of a conversion), if it is known without them.
c10::optional<ElementType> StaticResultType(PointwiseOp op) {
  if (IsComparison(op) || IsConversion(op)) return ResultTypeOf(op);
  return c10::nullopt;
}

// Why `node`'s constant arguments (or, for a conversion, its input) do not
// suit `schema` ("" when they do).
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
    case Needs::kConversion: {
      const c10::optional<c10::IValue> dtype = constant_of(node->input(1));
      const c10::optional<c10::IValue> format = constant_of(node->input(4));
      if (!dtype || !dtype->isInt() || dtype->toInt() != static_cast<int64_t>(schema.dtype) ||
          !format || !format->isNone()) {
        return "it is not a conversion to float, bool, int or long without a memory format";
      }
      // Only a conversion that surely converts: of a tensor of its dtype,
      // `to` returns its input itself, which a fused group would not.
      std::string why;
      const c10::optional<PointwiseOp> producer = Match(node->input(0)->node(), constant_of, &why);
      const c10::optional<ElementType> from = producer ? StaticResultType(*producer) : c10::nullopt;
      return from && *from != ResultTypeOf(schema.op)
                 ? ""
                 : "it does not convert a comparison's or a conversion's result of another dtype";
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

// The alias rule (passes/fuse_pointwise.h): why alias analysis keeps the
// fusible `node` out of groups ("" when it does not).
std::string WhyAliasingBlocks(const Node* node, PointwiseOp op,
                              const torch::jit::AliasDb& alias_db) {
  if (!IsConversion(op)) return "";
  return alias_db.hasWriters(node->input(0)) || alias_db.hasWriters(node->output())
             ? "a conversion that may return its input, which is written in place (alias "
               "analysis)"
             : "";
}

}  // namespace

c10::optional<PointwiseOp> PointwiseOpOf(const Node* node, const ConstantOf& constant_of) {
  std::string why;
  return Match(node, constant_of, &why);
}

std::string WhyNotFusible(const Node* node, const torch::jit::AliasDb& alias_db) {
  std::string why;
  const c10::optional<PointwiseOp> op = Match(node, ConstantInGraph, &why);
  return op ? WhyAliasingBlocks(node, *op, alias_db) : why;
}

std::string GroupOps(const Node* fused) {
  std::vector<std::string> kinds;
  for (const Node* node : fused->g(c10::attr::Subgraph)->nodes()) {
    kinds.push_back(node->kind().toUnqualString());
  }
  return absl::StrJoin(kinds, ", ");
}

namespace {

// Replaces the group `nodes` (in order, in one window) by one fused node.
// Its inputs are every value the group uses from outside (constants
// included); its outputs are the group's values used after it, then the
// others, so that the kernel can run the nodes one by one on the runtime's
// own slots when the fused form does not apply.
void FuseGroup(const std::vector<Node*>& nodes) {
  torch::jit::Graph* graph = nodes.front()->owningGraph();
  auto subgraph = std::make_shared<torch::jit::Graph>();
  absl::flat_hash_set<const Node*> in_group(nodes.begin(), nodes.end());
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
    for (const torch::jit::Use& use : output->uses()) used = used || !in_group.contains(use.user);
    (used ? used_after : internal).push_back(output);
  }
  std::vector<Value*> outer_outputs = used_after;
  outer_outputs.insert(outer_outputs.end(), internal.begin(), internal.end());
  for (Value* output : outer_outputs) subgraph->registerOutput(inner.at(output));
  Node* fused = graph->create(ops::kFusedPointwise, outer_inputs, outer_outputs.size());
  fused->g_(c10::attr::Subgraph, subgraph);
  fused->i_(ops::kUsedOutputs, static_cast<int64_t>(used_after.size()));
  // After the group's last node: every user outside the group comes later
  // (a window node using a group value is in the group), every value the
  // group uses (constants between its nodes too) is defined by then. Other
  // window nodes it moves past are functional and independent of it.
  fused->insertAfter(nodes.back());
  for (size_t i = 0; i < outer_outputs.size(); ++i) {
    fused->output(i)->setType(outer_outputs[i]->type());
    outer_outputs[i]->replaceAllUsesWith(fused->output(i));
  }
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) (*it)->destroy();
}

// The groups of a window of consecutive fusible nodes: its connected parts
// (a node joins the part of every window value it uses), in order, cut into
// pieces of at most kMaxGroupNodes; those of two nodes or more.
std::vector<std::vector<Node*>> GroupsOf(const std::vector<Node*>& window) {
  absl::flat_hash_map<const Node*, size_t> index;
  std::vector<size_t> parent(window.size());
  std::function<size_t(size_t)> root = [&](size_t i) {
    return parent[i] == i ? i : parent[i] = root(parent[i]);
  };
  for (size_t i = 0; i < window.size(); ++i) {
    parent[i] = i;
    index.emplace(window[i], i);
    for (const Value* input : window[i]->inputs()) {
      auto producer = index.find(input->node());
      if (producer != index.end()) parent[root(producer->second)] = root(i);
    }
  }
  absl::flat_hash_map<size_t, std::vector<Node*>> parts;
  std::vector<size_t> order;  // roots by first node
  for (size_t i = 0; i < window.size(); ++i) {
    std::vector<Node*>& part = parts[root(i)];
    if (part.empty()) order.push_back(root(i));
    part.push_back(window[i]);
  }
  std::vector<std::vector<Node*>> groups;
  for (size_t part_root : order) {
    const std::vector<Node*>& part = parts.at(part_root);
    for (size_t begin = 0; begin + 1 < part.size(); begin += kMaxGroupNodes) {
      const size_t end = std::min(part.size(), begin + kMaxGroupNodes);
      if (end - begin >= 2) groups.emplace_back(part.begin() + begin, part.begin() + end);
    }
  }
  return groups;
}

// Appends the groups of `block` and of its sub-blocks to `groups`.
void CollectGroups(torch::jit::Block* block, const torch::jit::AliasDb& alias_db,
                   std::vector<std::vector<Node*>>* groups) {
  std::vector<Node*> window;
  auto close_window = [&] {
    for (std::vector<Node*>& group : GroupsOf(window)) groups->push_back(std::move(group));
    window.clear();
  };
  for (Node* node : block->nodes()) {
    for (torch::jit::Block* sub_block : node->blocks()) CollectGroups(sub_block, alias_db, groups);
    if (node->kind() == c10::prim::Constant) continue;  // constants do not end a window
    // A conversion joins only the window of the value it converts (so that
    // the two share a group).
    const c10::optional<PointwiseOp> op = PointwiseOpOf(node, ConstantInGraph);
    const bool fusible = op && WhyAliasingBlocks(node, *op, alias_db).empty() &&
                         (!IsConversion(*op) || std::find(window.begin(), window.end(),
                                                          node->input(0)->node()) != window.end());
    if (fusible) {
      window.push_back(node);
    } else {
      close_window();
    }
  }
  close_window();
}

}  // namespace

bool FusePointwise(const std::shared_ptr<torch::jit::Graph>& graph) {
  ops::EnsureOperatorsRegistered();
  std::vector<std::vector<Node*>> groups;
  {
    const torch::jit::AliasDb alias_db(graph);  // of the graph before any group is fused
    CollectGroups(graph->block(), alias_db, &groups);
  }
  for (const std::vector<Node*>& nodes : groups) FuseGroup(nodes);
  return !groups.empty();
}

}  // namespace static_runtime
