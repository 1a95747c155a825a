#include "passes/copy_variants.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "ir/graph_util.h"
#include "ir/operators/operators.h"
#include "torch/csrc/jit/ir/alias_analysis.h"
#include "torch/csrc/jit/ir/constants.h"

namespace static_runtime {
namespace {

const ops::CopyVariant* FindCopyVariant(const torch::jit::Node* node) {
  for (const ops::CopyVariant& variant : ops::CopyVariants()) {
    if (IsOverload(node, variant.view_op, variant.view_overload)) return &variant;
  }
  return nullptr;
}

// Whether the graph reads strides (aten::stride, aten::is_contiguous), or
// writes, in place, to the input or the result of an op that returns a view
// or a copy depending on its input's strides. Then which one it returns is
// observable, and copy variants, which change the strides of everything
// computed from them, could change it (found by //fuzz:random_graph_test).
bool StrideDependentAliasingIsObserved(const std::shared_ptr<torch::jit::Graph>& graph,
                                       const torch::jit::AliasDb& alias_db) {
  for (torch::jit::Node* node : AllNodes(graph->block())) {
    // Strides read by the model: a copy's differ from a view's.
    static const c10::Symbol kIsContiguous = c10::Symbol::fromQualString("aten::is_contiguous");
    if (node->kind() == c10::aten::stride || node->kind() == kIsContiguous) return true;
    if (!ReturnsViewOrCopyByStrides(node->kind())) continue;
    if (alias_db.hasWriters(node->input(0)) || alias_db.hasWriters(node->output())) return true;
  }
  return false;
}

// Whether `value` is the caller's: an argument of the graph, or taken out of
// one (a list's, tuple's or dict's element).
bool FromCaller(const torch::jit::Value* value) {
  const torch::jit::Node* producer = value->node();
  if (producer->kind() == c10::prim::Param) return producer == value->owningGraph()->param_node();
  static const auto* const kTakeElements = new std::vector<c10::Symbol>{
      c10::aten::__getitem__,
      c10::prim::ListUnpack,
      c10::prim::TupleUnpack,
      c10::prim::TupleIndex,
      c10::Symbol::fromQualString("static_runtime::unpack_dict"),
  };
  return std::find(kTakeElements->begin(), kTakeElements->end(), producer->kind()) !=
             kTakeElements->end() &&
         FromCaller(producer->input(0));
}

// Whether `value` is, as a rule, a contiguous tensor: the caller's (callers
// pass contiguous tensors), the result of a stack or a matrix product, or a
// row of such a tensor. A reshape or flatten of it is then a view, free
// where the copy is a kernel call (0.6 us for a 16x32 reshape in an ads
// model); when it is not contiguous after all, ATen's reshape copies, into
// memory of its own.
bool UsuallyContiguous(const torch::jit::Value* value) {
  if (FromCaller(value)) return true;
  const torch::jit::Node* producer = value->node();
  // A row of a contiguous tensor (x[i]) is contiguous.
  if (producer->kind() == c10::aten::select) {
    const c10::optional<c10::IValue> dim = torch::jit::toIValue(producer->input(1));
    return dim && dim->isInt() && dim->toInt() == 0 && UsuallyContiguous(producer->input(0));
  }
  static const auto* const kContiguousResults = new std::vector<c10::Symbol>{
      c10::aten::stack,
      c10::aten::linear,
      c10::aten::mm,
      c10::aten::addmm,
      c10::aten::bmm,
      c10::aten::matmul,
      c10::Symbol::fromQualString("static_runtime::variadic_stack"),
      c10::Symbol::fromQualString("static_runtime::linear_fused"),
  };
  return std::find(kContiguousResults->begin(), kContiguousResults->end(), producer->kind()) !=
         kContiguousResults->end();
}

}  // namespace

bool UseCopyVariants(const std::shared_ptr<torch::jit::Graph>& graph) {
  ops::EnsureOperatorsRegistered();
  torch::jit::AliasDb alias_db(graph);
  if (StrideDependentAliasingIsObserved(graph, alias_db)) return false;
  std::vector<std::pair<torch::jit::Node*, const ops::CopyVariant*>> rewrites;
  for (torch::jit::Node* node : AllNodes(graph->block())) {
    const ops::CopyVariant* variant = FindCopyVariant(node);
    if (variant == nullptr) continue;
    torch::jit::Value* view = node->output();
    if (ReturnsViewOrCopyByStrides(node->kind()) && UsuallyContiguous(node->input(0))) continue;
    if (alias_db.hasWriters(node->input(0)) || alias_db.hasWriters(view) ||
        alias_db.mayContainAlias(view, graph->outputs())) {
      continue;
    }
    rewrites.emplace_back(node, variant);
  }
  for (const auto& [node, variant] : rewrites) {
    ReplaceNode(node, c10::Symbol::fromQualString(variant->copy_op), node->inputs());
  }
  return !rewrites.empty();
}

}  // namespace static_runtime
