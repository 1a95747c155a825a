#include "passes/prune_encoder_rows.h"

#include <optional>
#include <vector>

#include "ir/graph_util.h"
#include "ir/operators/operators.h"
#include "torch/csrc/jit/ir/constants.h"

namespace static_runtime {
namespace {

using torch::jit::Node;
using torch::jit::Value;

std::optional<int64_t> ConstantInt(Value* value) {
  c10::optional<c10::IValue> constant = torch::jit::toIValue(value);
  if (!constant || !constant->isInt()) return std::nullopt;
  return constant->toInt();
}

// Whether `value` (a [B, T, D] tensor, or nested sequences of [T_i, D]) is
// read only at token `row` of its second dimension, the same constant for
// every read; sets `row`. See the header for the reads followed.
bool ReadsOneToken(Value* value, std::optional<int64_t>& row) {
  if (!value->hasUses()) return false;
  for (const torch::jit::Use& use : value->uses()) {
    Node* user = use.user;
    if (user->kind() == c10::prim::Return) {
      Node* owner = user->owningBlock()->owningNode();
      if (owner == nullptr || owner->kind() != c10::prim::If ||
          !ReadsOneToken(owner->output(use.offset), row)) {
        return false;
      }
      continue;
    }
    if (use.offset != 0) return false;
    if (IsOverload(user, "aten::select", "int")) {
      const std::optional<int64_t> dim = ConstantInt(user->input(1));
      const std::optional<int64_t> index = ConstantInt(user->input(2));
      if (!dim || (*dim != 1 && *dim != -2) || !index || (row && *row != *index)) return false;
      row = *index;
    } else if (IsOverload(user, "aten::to_padded_tensor", "")) {
      if (!user->input(2)->mustBeNone() || !ReadsOneToken(user->output(), row)) return false;
    } else if (IsOverload(user, "aten::layer_norm", "")) {
      c10::optional<c10::IValue> shape = torch::jit::toIValue(user->input(1));
      if (!shape || !shape->isIntList() || shape->toIntList().size() != 1 ||
          !ReadsOneToken(user->output(), row)) {
        return false;
      }
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

bool PruneEncoderRows(const std::shared_ptr<torch::jit::Graph>& graph) {
  bool changed = false;
  for (Node* node : AllNodes(graph->block())) {
    if (node->kind() != ops::kTransformerEncoderLayer) continue;
    std::optional<int64_t> row;
    if (!ReadsOneToken(node->output(), row)) continue;
    std::vector<Value*> inputs(node->inputs().begin(), node->inputs().end());
    {
      torch::jit::WithInsertPoint before(node);
      inputs.push_back(graph->insertConstant(*row));
    }
    ReplaceNode(node, ops::kTransformerEncoderLayerRow, inputs);
    changed = true;
  }
  return changed;
}

}  // namespace static_runtime
