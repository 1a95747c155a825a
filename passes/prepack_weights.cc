#include "passes/prepack_weights.h"

#include <algorithm>
#include <memory>
#include <string_view>
#include <vector>

#include "ir/graph_util.h"
#include "ir/operators/operators.h"
#include "torch/csrc/jit/ir/alias_analysis.h"
#include "torch/csrc/jit/ir/constants.h"
#include "torch/csrc/jit/passes/constant_pooling.h"

namespace static_runtime {
namespace {

using torch::jit::Node;
using torch::jit::Value;

bool IsConstantTensor(const Value* value, int64_t dim) {
  const c10::optional<c10::IValue> constant = torch::jit::toIValue(value);
  return constant && constant->isTensor() && constant->toTensor().dim() == dim &&
         constant->toTensor().scalar_type() == at::kFloat;
}

bool IsConstant(const Value* value) { return torch::jit::toIValue(value).has_value(); }

// Inputs 1 and 2 of a conv or linear node: a constant float weight of
// `weight_dim` dimensions, and a constant 1-D float bias or None.
bool HasFrozenWeightAndBias(const Node* node, int64_t weight_dim) {
  const c10::optional<c10::IValue> bias = torch::jit::toIValue(node->input(2));
  return bias && (bias->isNone() || IsConstantTensor(node->input(2), 1)) &&
         IsConstantTensor(node->input(1), weight_dim);
}

// A conv2d the fused kernel takes: constant 4-D float weight, constant 1-D
// float bias or None, constant hyper-parameters.
bool IsPrepackableConv(const Node* node) {
  if (!IsOverload(node, "aten::conv2d", "") || !HasFrozenWeightAndBias(node, 4)) return false;
  for (size_t i = 3; i < 7; ++i) {
    if (!IsConstant(node->input(i))) return false;
  }
  return true;
}

// A conv1d with a constant 3-D float weight, constant bias or None and
// constant int-list hyper-parameters (not the padding="same" overload).
bool IsPrepackableConv1d(const Node* node) {
  if (!IsOverload(node, "aten::conv1d", "") || !HasFrozenWeightAndBias(node, 3)) return false;
  for (size_t i = 3; i < 6; ++i) {
    const c10::optional<c10::IValue> list = torch::jit::toIValue(node->input(i));
    if (!list || !list->isIntList() || list->toIntVector().size() != 1) return false;
  }
  return IsConstant(node->input(6));
}

// A conv1d/conv2d with padding "valid" or "same" (the `padding` overloads),
// a constant weight and constant hyper-parameters, as the default overload
// with the integer padding ATen uses, when ATen pads symmetrically: 0 for
// "valid"; dilation * (kernel - 1) / 2 per side for "same" (stride 1) when
// that total is even. Else nullopt (ATen pads the input itself, or errors).
c10::optional<std::vector<int64_t>> ExplicitPadding(const Node* node) {
  if (!IsOverload(node, "aten::conv1d", "padding") &&
      !IsOverload(node, "aten::conv2d", "padding")) {
    return c10::nullopt;
  }
  const int64_t spatial = node->kind() == c10::aten::conv1d ? 1 : 2;
  if (!IsConstantTensor(node->input(1), spatial + 2)) return c10::nullopt;
  const c10::optional<c10::IValue> stride = torch::jit::toIValue(node->input(3));
  const c10::optional<c10::IValue> mode = torch::jit::toIValue(node->input(4));
  const c10::optional<c10::IValue> dilation = torch::jit::toIValue(node->input(5));
  if (!stride || !mode || !dilation || !stride->isIntList() || !mode->isString() ||
      !dilation->isIntList()) {
    return c10::nullopt;
  }
  const std::vector<int64_t> strides = stride->toIntVector();
  const std::vector<int64_t> dilations = dilation->toIntVector();
  const auto at = [&](const std::vector<int64_t>& list, int64_t i) {
    return list.size() == 1 ? list[0] : list[i];
  };
  if ((strides.size() != 1 && static_cast<int64_t>(strides.size()) != spatial) ||
      (dilations.size() != 1 && static_cast<int64_t>(dilations.size()) != spatial)) {
    return c10::nullopt;
  }
  const at::Tensor weight = torch::jit::toIValue(node->input(1))->toTensor();
  std::vector<int64_t> padding(spatial, 0);
  if (mode->toStringRef() == "valid") return padding;
  if (mode->toStringRef() != "same") return c10::nullopt;
  for (int64_t i = 0; i < spatial; ++i) {
    const int64_t total = at(dilations, i) * (weight.size(2 + i) - 1);
    if (at(strides, i) != 1 || total % 2 != 0) return c10::nullopt;
    padding[i] = total / 2;
  }
  return padding;
}

// The default overload of `conv`'s op with `padding` in place of the string.
void UseExplicitPadding(Node* conv, const std::vector<int64_t>& padding) {
  torch::jit::Graph* graph = conv->owningGraph();
  torch::jit::WithInsertPoint insert_point(conv);
  std::vector<Value*> inputs(conv->inputs().begin(), conv->inputs().end());
  inputs[4] = graph->insertConstant(padding);
  ReplaceNode(conv, conv->kind(), inputs);
}

// The only user of `value` when it has exactly one use in the same block.
Node* SoleUser(const Value* value) {
  if (value->uses().size() != 1) return nullptr;
  Node* user = value->uses()[0].user;
  return user->owningBlock() == value->node()->owningBlock() ? user : nullptr;
}

// `add` is aten::add.Tensor(a, b, alpha=1) with `value` as exactly one of a,
// b: returns the other operand, else nullptr.
Value* ResidualOperand(const Node* add, const Value* value) {
  if (!IsOverload(add, "aten::add", "Tensor")) return nullptr;
  const c10::optional<c10::IValue> alpha = torch::jit::toIValue(add->input(2));
  if (!alpha || !(alpha->isInt() || alpha->isDouble()) || alpha->toScalar().toDouble() != 1.0) {
    return nullptr;
  }
  Value* a = add->input(0);
  Value* b = add->input(1);
  if (a == b) return nullptr;
  Value* other = a == value ? b : a;
  return other->type()->isSubtypeOf(*c10::TensorType::get()) ? other : nullptr;
}

struct Activation {
  const char* name;
  double min_value = 0;
  double max_value = 0;
};

// The activation `node` computes, if the fused kernel supports it.
c10::optional<Activation> ActivationOf(const Node* node) {
  if (IsOverload(node, "aten::relu", "")) return Activation{"relu"};
  if (IsOverload(node, "aten::hardswish", "")) return Activation{"hardswish"};
  if (IsOverload(node, "aten::hardsigmoid", "")) return Activation{"hardsigmoid"};
  if (IsOverload(node, "aten::sigmoid", "")) return Activation{"sigmoid"};
  if (IsOverload(node, "aten::silu", "")) return Activation{"silu"};
  if (IsOverload(node, "aten::gelu", "")) {
    const c10::optional<c10::IValue> approximate = torch::jit::toIValue(node->input(1));
    if (approximate && approximate->isString() && approximate->toStringRef() == "none") {
      return Activation{"gelu"};
    }
  }
  if (IsOverload(node, "aten::hardtanh", "")) {
    const c10::optional<c10::IValue> low = torch::jit::toIValue(node->input(1));
    const c10::optional<c10::IValue> high = torch::jit::toIValue(node->input(2));
    if (low && high && (low->isDouble() || low->isInt()) && (high->isDouble() || high->isInt())) {
      return Activation{"hardtanh", low->toScalar().toDouble(), high->toScalar().toDouble()};
    }
  }
  return c10::nullopt;
}

// Appends to `chain` the activation its last node's result feeds, when that
// result has no other use; returns it ("none" if there is none).
Activation AbsorbActivation(std::vector<Node*>& chain) {
  if (Node* user = SoleUser(chain.back()->output())) {
    if (c10::optional<Activation> found = ActivationOf(user)) {
      chain.push_back(user);
      return *found;
    }
  }
  return Activation{"none"};
}

// Whether `chain` (in program order, in one block) computes the same as one
// node in its last node's place: nothing between its first and last node
// (their sub-blocks included) writes to memory that an input of the chain may
// share (a linear's input updated in place by a branch before its relu).
bool RunsAtItsLastNode(const std::shared_ptr<torch::jit::Graph>& graph,
                       const std::vector<Node*>& chain) {
  if (chain.size() == 1 || chain.front()->next() == chain.back()) return true;
  const torch::jit::AliasDb alias_db(graph);
  torch::jit::ValueSet inputs;
  for (const Node* node : chain) {
    for (const Value* input : node->inputs()) {
      if (std::find(chain.begin(), chain.end(), input->node()) == chain.end()) {
        inputs.insert(input);
      }
    }
  }
  for (Node* node = chain.front()->next(); node != chain.back(); node = node->next()) {
    if (alias_db.writesToAlias(node, inputs)) return false;
  }
  return true;
}

// Replaces `chain` (in program order, each node's only user the next) by
// one node of `kind` with `inputs` and then the activation's name, min and
// max, placed where the chain's last node was. The caller inserts any
// constant among `inputs` before that node.
void ReplaceChain(const std::vector<Node*>& chain, c10::Symbol kind, std::vector<Value*> inputs,
                  const Activation& activation) {
  Node* last = chain.back();
  {
    torch::jit::Graph* graph = last->owningGraph();
    torch::jit::WithInsertPoint insert_point(last);
    inputs.push_back(graph->insertConstant(std::string(activation.name)));
    inputs.push_back(graph->insertConstant(activation.min_value));
    inputs.push_back(graph->insertConstant(activation.max_value));
  }
  ReplaceNode(last, kind, inputs);
  for (auto node = chain.rbegin() + 1; node != chain.rend(); ++node) (*node)->destroy();
}

// conv1d(x, w, b, [s], [p], [d], g) as ATen computes it: a conv2d over a
// 1-high image, squeeze(conv2d(unsqueeze(x, -2), w.unsqueeze(2), b, [1, s],
// [0, p], [1, d], g), -2) (-2 so an unbatched [C, L] input works too).
void RewriteConv1dAsConv2d(Node* conv1d) {
  torch::jit::Graph* graph = conv1d->owningGraph();
  torch::jit::WithInsertPoint insert_point(conv1d);
  const auto one = [](const Value* list, int64_t first) {
    return std::vector<int64_t>{first, torch::jit::toIValue(list)->toIntVector()[0]};
  };
  const int64_t minus_two = -2;
  Value* image = graph->insert(c10::aten::unsqueeze, {conv1d->input(0), minus_two});
  Node* conv2d = graph->create(
      c10::aten::conv2d,
      {image,
       graph->insertConstant(torch::jit::toIValue(conv1d->input(1))->toTensor().unsqueeze(2)),
       conv1d->input(2), graph->insertConstant(one(conv1d->input(3), 1)),
       graph->insertConstant(one(conv1d->input(4), 0)),
       graph->insertConstant(one(conv1d->input(5), 1)), conv1d->input(6)},
      1);
  graph->insertNode(conv2d);
  conv2d->copyMetadata(conv1d);
  conv2d->output()->setType(c10::TensorType::get());
  Node* activation = SoleUser(conv1d->output());
  if (activation != nullptr && ActivationOf(activation) &&
      activation->input(0) == conv1d->output()) {
    // The activation (elementwise: it commutes with the squeeze) runs on
    // the 2D result, so that FuseConv absorbs it.
    activation->replaceInput(0, conv2d->output());
    Value* activated = activation->output();
    torch::jit::WithInsertPoint after_activation(activation->next());
    Value* result = graph->insert(c10::aten::squeeze, {activated, minus_two});
    result->copyMetadata(activated);
    activated->replaceAllUsesWith(result);
    result->node()->replaceInput(0, activated);
    activated->setType(c10::TensorType::get());
  } else {
    Value* result = graph->insert(c10::aten::squeeze, {conv2d->output(), minus_two});
    result->copyMetadata(conv1d->output());
    conv1d->output()->replaceAllUsesWith(result);
  }
  conv1d->destroy();
}

void FuseConv(const std::shared_ptr<torch::jit::Graph>& graph, Node* conv) {
  std::vector<Node*> chain = {conv};
  Value* residual = nullptr;
  if (Node* user = SoleUser(conv->output())) {
    residual = ResidualOperand(user, conv->output());
    if (residual != nullptr) chain.push_back(user);
  }
  Activation activation = AbsorbActivation(chain);
  // Shorter chains where a write comes between: without the activation,
  // then without the residual add.
  while (!RunsAtItsLastNode(graph, chain)) {
    if (std::string_view(activation.name) != "none") {
      activation = Activation{"none"};
    } else {
      residual = nullptr;
    }
    chain.pop_back();
  }
  std::vector<Value*> inputs(conv->inputs().begin(), conv->inputs().end());
  if (residual == nullptr) {
    torch::jit::WithInsertPoint insert_point(chain.back());
    residual = conv->owningGraph()->insertConstant(c10::IValue());
  }
  inputs.push_back(residual);
  ReplaceChain(chain, ops::kConv2dFused, std::move(inputs), activation);
}

// A linear with a constant 2-D float weight and a constant 1-D float bias or
// None.
bool IsPrepackableLinear(const Node* node) {
  return IsOverload(node, "aten::linear", "") && HasFrozenWeightAndBias(node, 2);
}

// x @ W (aten::matmul) with W a constant float matrix: what linear(x, W^T)
// computes, but for the order of the sums. Audio front ends apply their
// filter banks so (torchaudio's MelScale and MFCC), and layers written as
// `x @ self.weight`. (aten::mm stays: it refuses an x that is not a matrix,
// which a graph's types do not promise, and the linear would take it.)
bool IsMatmulByConstant(const Node* node) {
  return IsOverload(node, "aten::matmul", "") && IsConstantTensor(node->input(1), 2);
}

// The linear with weight W^T in `matmul`'s place.
void MatmulAsLinear(Node* matmul) {
  torch::jit::Graph* graph = matmul->owningGraph();
  torch::jit::WithInsertPoint insert_point(matmul);
  const at::Tensor weight = torch::jit::toIValue(matmul->input(1))->toTensor();
  Value* weight_t = graph->insertConstant(weight.t().contiguous());
  Value* none = graph->insertConstant(c10::IValue());
  ReplaceNode(matmul, c10::Symbol::fromQualString("aten::linear"),
              {matmul->input(0), weight_t, none});
}

void FuseLinear(const std::shared_ptr<torch::jit::Graph>& graph, Node* linear) {
  std::vector<Node*> chain = {linear};
  Activation activation = AbsorbActivation(chain);
  if (!RunsAtItsLastNode(graph, chain)) {
    activation = Activation{"none"};
    chain.pop_back();
  }
  ReplaceChain(chain, ops::kLinearFused, {linear->input(0), linear->input(1), linear->input(2)},
               activation);
}

// The nodes of `graph` (sub-blocks included) that `matches`.
std::vector<Node*> NodesWhere(const std::shared_ptr<torch::jit::Graph>& graph,
                              bool (*matches)(const Node*)) {
  std::vector<Node*> found;
  for (Node* node : AllNodes(graph->block())) {
    if (matches(node)) found.push_back(node);
  }
  return found;
}

// A transformer encoder layer whose inputs but the source, the mask and the
// mask type are constants, with float weights of the expected ranks
// (3, 5, 14, 16: [N, K] matrices; 4, 6, 10-13, 15, 17: vectors).
bool IsPrepackableTransformerLayer(const Node* node) {
  if (!IsOverload(node, "aten::_transformer_encoder_layer_fwd", "")) return false;
  for (size_t i : {3, 5, 14, 16}) {
    if (!IsConstantTensor(node->input(i), 2)) return false;
  }
  for (size_t i : {4, 6, 10, 11, 12, 13, 15, 17}) {
    if (!IsConstantTensor(node->input(i), 1)) return false;
  }
  for (size_t i : {1, 2, 7, 8, 9}) {
    if (!IsConstant(node->input(i))) return false;
  }
  return true;
}

// nn.MultiheadAttention's fast path with constant weights and sizes, not
// asked for its attention weights.
bool IsPrepackableAttention(const Node* node) {
  if (!IsOverload(node, "aten::_native_multi_head_attention", "")) return false;
  for (size_t i : {5, 7}) {
    if (!IsConstantTensor(node->input(i), 2)) return false;
  }
  for (size_t i : {6, 8}) {
    if (!IsConstantTensor(node->input(i), 1)) return false;
  }
  const c10::optional<c10::IValue> need_weights = torch::jit::toIValue(node->input(10));
  return IsConstant(node->input(3)) && IsConstant(node->input(4)) && need_weights &&
         need_weights->isBool() && !need_weights->toBool();
}

// The fast-gates op of a recurrent network whose parameters and every
// argument after them are constants (a frozen network's, as the kernels take
// them), or of a cell whose weights and biases are; nullopt for any other
// node.
c10::optional<c10::Symbol> FastRnnKind(const Node* node) {
  for (const auto& [name, fast] : {std::pair{"aten::lstm_cell", ops::kLstmCellFastGates},
                                   std::pair{"aten::gru_cell", ops::kGruCellFastGates}}) {
    if (!IsOverload(node, name, "")) continue;
    for (size_t weight = 2; weight < 6; ++weight) {
      if (!IsConstant(node->input(weight))) return c10::nullopt;
    }
    return fast;
  }
  const std::pair<const char*, c10::Symbol> kRenamed[] = {
      {"aten::lstm", ops::kLstmFastGates},
      {"aten::gru", ops::kGruFastGates},
      {"aten::rnn_tanh", ops::kRnnTanhFastGates}};
  for (const auto& [name, fast] : kRenamed) {
    for (const auto& [overload, params] : {std::pair{"input", 2}, std::pair{"data", 3}}) {
      if (!IsOverload(node, name, overload)) continue;
      for (size_t i = params; i < node->inputs().size(); ++i) {
        if (!IsConstant(node->input(i))) return c10::nullopt;
      }
      return fast;
    }
  }
  return c10::nullopt;
}

bool HasFastRnnKind(const Node* node) { return FastRnnKind(node).has_value(); }

}  // namespace

bool PrepackTransformerLayers(const std::shared_ptr<torch::jit::Graph>& graph) {
  ops::EnsureOperatorsRegistered();
  const std::vector<Node*> layers = NodesWhere(graph, IsPrepackableTransformerLayer);
  for (Node* layer : layers) {
    layer->replaceWithNewSymbol(ops::kTransformerEncoderLayer);
    layer->destroy();
  }
  const std::vector<Node*> attentions = NodesWhere(graph, IsPrepackableAttention);
  for (Node* attention : attentions) {
    attention->replaceWithNewSymbol(ops::kMultiHeadAttention);
    attention->destroy();
  }
  return !layers.empty() || !attentions.empty();
}

bool UseFastRnnGates(const std::shared_ptr<torch::jit::Graph>& graph) {
  ops::EnsureOperatorsRegistered();
  const std::vector<Node*> networks = NodesWhere(graph, HasFastRnnKind);
  for (Node* network : networks) {
    network->replaceWithNewSymbol(*FastRnnKind(network));
    network->destroy();
  }
  return !networks.empty();
}

bool FuseLinears(const std::shared_ptr<torch::jit::Graph>& graph) {
  ops::EnsureOperatorsRegistered();
  for (Node* matmul : NodesWhere(graph, IsMatmulByConstant)) MatmulAsLinear(matmul);
  const std::vector<Node*> linears = NodesWhere(graph, IsPrepackableLinear);
  for (Node* linear : linears) FuseLinear(graph, linear);
  if (!linears.empty()) torch::jit::ConstantPooling(graph);
  return !linears.empty();
}

bool FuseConvolutions(const std::shared_ptr<torch::jit::Graph>& graph) {
  ops::EnsureOperatorsRegistered();
  std::vector<std::pair<Node*, std::vector<int64_t>>> padded;
  for (Node* node : AllNodes(graph->block())) {
    if (c10::optional<std::vector<int64_t>> padding = ExplicitPadding(node)) {
      padded.emplace_back(node, *padding);
    }
  }
  for (auto& [conv, padding] : padded) UseExplicitPadding(conv, padding);
  for (Node* conv1d : NodesWhere(graph, IsPrepackableConv1d)) RewriteConv1dAsConv2d(conv1d);
  const std::vector<Node*> convs = NodesWhere(graph, IsPrepackableConv);
  for (Node* conv : convs) FuseConv(graph, conv);
  if (!convs.empty()) torch::jit::ConstantPooling(graph);
  return !convs.empty();
}

}  // namespace static_runtime
