#include "passes/fold_constant_splits.h"

#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "ATen/ATen.h"
#include "absl/container/flat_hash_set.h"
#include "ir/graph_util.h"
#include "torch/csrc/jit/ir/constants.h"

namespace static_runtime {
namespace {

using torch::jit::Node;
using torch::jit::Value;

// The sizes of a split, each `coefficients[i] * unknown + constants[i]`:
// each element a constant, the unknown itself, or the unknown times a
// constant.
struct LinearSizes {
  Value* unknown = nullptr;
  std::vector<int64_t> coefficients;
  std::vector<int64_t> constants;
};

int64_t Sum(const std::vector<int64_t>& values) {
  return std::accumulate(values.begin(), values.end(), int64_t{0});
}

c10::optional<int64_t> ConstantInt(Value* value) {
  c10::optional<c10::IValue> constant = torch::jit::toIValue(value);
  if (!constant || !constant->isInt()) return c10::nullopt;
  return constant->toInt();
}

// Adds `element` to `sizes`; false if it is not of a form above.
bool AddElement(Value* element, LinearSizes& sizes) {
  int64_t coefficient = 0;
  int64_t constant = 0;
  Value* unknown = nullptr;
  if (c10::optional<int64_t> value = ConstantInt(element)) {
    if (*value < 0) return false;
    constant = *value;
  } else if (IsOverload(element->node(), "aten::mul", "int")) {
    Node* mul = element->node();
    c10::optional<int64_t> left = ConstantInt(mul->input(0));
    c10::optional<int64_t> right = ConstantInt(mul->input(1));
    if (left.has_value() == right.has_value()) return false;
    coefficient = left ? *left : *right;
    unknown = left ? mul->input(1) : mul->input(0);
    if (coefficient <= 0) return false;
  } else {
    coefficient = 1;
    unknown = element;
  }
  if (unknown != nullptr) {
    if (sizes.unknown != nullptr && sizes.unknown != unknown) return false;
    sizes.unknown = unknown;
  }
  sizes.coefficients.push_back(coefficient);
  sizes.constants.push_back(constant);
  return true;
}

// The guards inserted: (unknown, its solution, the block of the guard). A
// later split of the same unknown in the same block needs none: the first
// guard already raised for any other value.
using Guards = absl::flat_hash_set<std::tuple<Value*, int64_t, torch::jit::Block*>>;

// Folds `split` if it splits a constant tensor along a constant dimension by
// sizes of one unknown; true if it did.
bool FoldSplit(Node* split, Guards& guarded) {
  if (!IsOverload(split, "aten::split", "") && !IsOverload(split, "aten::split", "sizes") &&
      !IsOverload(split, "aten::split_with_sizes", "")) {
    return false;
  }
  c10::optional<c10::IValue> weight = torch::jit::toIValue(split->input(0));
  c10::optional<int64_t> dim = ConstantInt(split->input(2));
  Node* list = split->input(1)->node();
  if (!weight || !weight->isTensor() || !dim || list->kind() != c10::prim::ListConstruct) {
    return false;
  }
  const at::Tensor& tensor = weight->toTensor();
  if (tensor.dim() == 0 || *dim < -tensor.dim() || *dim >= tensor.dim()) return false;
  const int64_t split_dim = *dim < 0 ? *dim + tensor.dim() : *dim;
  LinearSizes sizes;
  for (Value* element : list->inputs()) {
    if (!AddElement(element, sizes)) return false;
  }
  const int64_t rest = tensor.size(split_dim) - Sum(sizes.constants);
  const int64_t coefficient = Sum(sizes.coefficients);
  if (sizes.unknown == nullptr || rest < 0 || rest % coefficient != 0) return false;
  const int64_t solution = rest / coefficient;
  std::vector<int64_t> piece_sizes;
  for (size_t i = 0; i < sizes.coefficients.size(); ++i) {
    piece_sizes.push_back(sizes.coefficients[i] * solution + sizes.constants[i]);
  }
  std::vector<at::Tensor> pieces = tensor.split_with_sizes(piece_sizes, split_dim);

  torch::jit::Graph* graph = split->owningGraph();
  torch::jit::WithInsertPoint before(split);
  if (guarded.insert({sizes.unknown, solution, split->owningBlock()}).second) {
    // if unknown != solution: the split itself, which raises ATen's error.
    Value* solved = graph->insert(c10::aten::eq, {sizes.unknown, solution});
    Node* guard = graph->insertNode(graph->create(c10::prim::If, {solved}, 0));
    guard->addBlock();
    torch::jit::WithInsertPoint in_else(guard->addBlock());
    Node* failing = graph->insertNode(graph->create(split->kind(), split->inputs(), 1));
    failing->output()->setType(split->output()->type());
    // Never built (the split raised), but it keeps the split alive.
    Value* pieces_made = graph->insert(c10::aten::len, {failing->output()});
    Value* message =
        graph->insert(c10::aten::format,
                      {"static_runtime: splitting by {} should have failed, not made {} pieces",
                       split->input(1), pieces_made});
    graph->insertNode(graph->create(c10::prim::RaiseException,
                                    {message, graph->insertConstant(c10::IValue())}, 0));
  }
  std::vector<Value*> constants;
  for (const at::Tensor& piece : pieces) constants.push_back(graph->insertConstant(piece));
  Value* result = split->output();
  std::vector<Node*> unpacks;
  for (const torch::jit::Use& use : result->uses()) {
    if (use.user->kind() == c10::prim::ListUnpack && use.user->outputs().size() == pieces.size()) {
      unpacks.push_back(use.user);
    }
  }
  for (Node* unpack : unpacks) {
    for (size_t i = 0; i < pieces.size(); ++i) {
      unpack->output(i)->replaceAllUsesWith(constants[i]);
    }
    unpack->destroy();
  }
  if (result->hasUses()) {
    result->replaceAllUsesWith(
        graph->insertNode(graph->createList(c10::TensorType::get(), constants))->output());
  }
  split->destroy();
  return true;
}

}  // namespace

bool FoldConstantSplits(const std::shared_ptr<torch::jit::Graph>& graph) {
  std::vector<Node*> splits;  // first, as folding destroys the unpacks after them
  for (Node* node : AllNodes(graph->block())) {
    if (node->kind() == c10::aten::split || node->kind() == c10::aten::split_with_sizes) {
      splits.push_back(node);
    }
  }
  Guards guarded;
  bool changed = false;
  for (Node* split : splits) changed |= FoldSplit(split, guarded);
  return changed;
}

}  // namespace static_runtime
