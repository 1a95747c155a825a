#include "passes/fold_string_checks.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/graph_util.h"
#include "torch/csrc/jit/ir/constants.h"
#include "torch/csrc/jit/passes/constant_propagation.h"

namespace static_runtime {
namespace {

using torch::jit::Node;
using torch::jit::Value;

// Whether `value` is a constant that formats the same on every run.
bool IsConstantScalar(const Value* value) {
  const c10::optional<c10::IValue> constant = torch::jit::toIValue(value);
  return constant.has_value() && (constant->isString() || constant->isInt() ||
                                  constant->isDouble() || constant->isBool() || constant->isNone());
}

// Replaces each `aten::format` of constant arguments by its result.
bool FoldConstantFormats(const std::shared_ptr<torch::jit::Graph>& graph) {
  std::vector<Node*> folded;
  for (Node* node : AllNodes(graph->block())) {
    if (node->kind() != c10::aten::format ||
        !std::all_of(node->inputs().begin(), node->inputs().end(), IsConstantScalar)) {
      continue;
    }
    // Empty when the operator raises ("Too few arguments for format
    // string"): the node stays, to raise where the JIT would.
    c10::optional<torch::jit::Stack> result = torch::jit::runNodeIfInputsAreConstant(node);
    if (!result.has_value() || result->size() != 1) continue;
    torch::jit::WithInsertPoint insert_point(node);
    node->output()->replaceAllUsesWith(graph->insertConstant((*result)[0]));
    folded.push_back(node);
  }
  for (Node* node : folded) node->destroy();
  return !folded.empty();
}

// A lower bound of the length of the string `value` holds on every run.
class MinLengths {
 public:
  int64_t Of(const Value* value) {
    if (auto it = known_.find(value); it != known_.end()) return it->second;
    const int64_t length = Compute(value);
    known_[value] = length;
    return length;
  }

 private:
  int64_t Compute(const Value* value) {
    if (const c10::optional<c10::IValue> constant = torch::jit::toIValue(value)) {
      return constant->isString() ? static_cast<int64_t>(constant->toStringRef().size()) : 0;
    }
    const Node* node = value->node();
    if (node->kind() == c10::aten::format) {
      // Every character of the format string but the "{}" placeholders is
      // kept; counting no brace at all stays below that.
      const c10::optional<c10::IValue> format = torch::jit::toIValue(node->input(0));
      if (!format.has_value() || !format->isString()) return 0;
      const std::string& text = format->toStringRef();
      return static_cast<int64_t>(text.size()) - std::count(text.begin(), text.end(), '{') -
             std::count(text.begin(), text.end(), '}');
    }
    if (node->kind() == c10::aten::add && node->inputs().size() == 2 &&
        node->input(0)->type()->kind() == c10::TypeKind::StringType &&
        node->input(1)->type()->kind() == c10::TypeKind::StringType) {
      return Of(node->input(0)) + Of(node->input(1));
    }
    if (node->kind() == c10::prim::If) {
      const size_t index = value->offset();
      int64_t least = Of(node->blocks()[0]->outputs()[index]);
      for (const torch::jit::Block* block : node->blocks()) {
        least = std::min(least, Of(block->outputs()[index]));
      }
      return least;
    }
    return 0;
  }

  absl::flat_hash_map<const Value*, int64_t> known_;
};

// The answer of `len(s) <op> bound` for every length of at least `least`,
// if that settles it.
c10::optional<bool> SettledComparison(c10::Symbol op, int64_t least, int64_t bound) {
  if (least <= bound) return c10::nullopt;  // only "len(s) > bound" is known
  if (op == c10::aten::gt || op == c10::aten::ge || op == c10::aten::ne) return true;
  if (op == c10::aten::lt || op == c10::aten::le || op == c10::aten::eq) return false;
  return c10::nullopt;
}

// Replaces each comparison of a string's length with a constant that the
// string's least length settles.
bool FoldLengthComparisons(const std::shared_ptr<torch::jit::Graph>& graph) {
  MinLengths min_lengths;
  std::vector<Node*> folded;
  for (Node* node : AllNodes(graph->block())) {
    if (node->inputs().size() != 2 || node->outputs().size() != 1) continue;
    const Node* length = node->input(0)->node();
    const c10::optional<c10::IValue> bound = torch::jit::toIValue(node->input(1));
    if (length->kind() != c10::aten::len || length->inputs().size() != 1 ||
        length->input(0)->type()->kind() != c10::TypeKind::StringType || !bound.has_value() ||
        !bound->isInt()) {
      continue;
    }
    const c10::optional<bool> answer =
        SettledComparison(node->kind(), min_lengths.Of(length->input(0)), bound->toInt());
    if (!answer.has_value()) continue;
    torch::jit::WithInsertPoint insert_point(node);
    node->output()->replaceAllUsesWith(graph->insertConstant(*answer));
    folded.push_back(node);
  }
  for (Node* node : folded) node->destroy();
  return !folded.empty();
}

}  // namespace

bool FoldStringChecks(const std::shared_ptr<torch::jit::Graph>& graph) {
  bool changed = false;
  // A decided branch may leave an If whose remaining results all have a
  // length: again until nothing folds (each round removes nodes).
  while (true) {
    const bool formats = FoldConstantFormats(graph);
    const bool comparisons = FoldLengthComparisons(graph);
    if (!formats && !comparisons) return changed;
    changed = true;
    std::shared_ptr<torch::jit::Graph> decided = graph;  // ConstantPropagation takes a mutable one
    torch::jit::ConstantPropagation(decided);            // the branches decided
  }
}

}  // namespace static_runtime
