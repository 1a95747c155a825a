#include "passes/copy_variants.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
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

bool IsOneOf(const torch::jit::Node* node, const std::vector<c10::Symbol>& kinds) {
  return std::find(kinds.begin(), kinds.end(), node->kind()) != kinds.end();
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
    if (ReadsStrides(node)) return true;
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
  return IsOneOf(producer, *kTakeElements) && FromCaller(producer->input(0));
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
  return IsOneOf(producer, *kContiguousResults);
}

// Whether the memory order of `value` can decide some result's rounding: a
// reduction that adds in memory order (sum, mean, norm, group_norm, ...)
// reads it, or reads what ops that keep their input's strides (pointwise
// math, views, lists, tuples) computed from it, before an op that lays its
// result out afresh (a matrix product, a convolution, softmax, contiguous;
// conv2d_fused and linear_fused, which the passes before this one make)
// ends the chain. A copy variant's result is contiguous where the view op's
// is strided, so such a reduction would add in another order (found by
// //fuzz:random_graph_test: float(x.div(0.5).permute([1, 2, 0]).sum())).
// Values flowing into or out of an If or Loop count as observed.
bool MemoryOrderIsObserved(const torch::jit::Value* value) {
  static const auto* const kAddsInMemoryOrder = new std::vector<c10::Symbol>{
      c10::aten::sum,
      c10::aten::mean,
      c10::aten::prod,
      c10::aten::nansum,
      c10::aten::nanmean,
      c10::aten::norm,
      c10::aten::frobenius_norm,
      c10::aten::linalg_vector_norm,
      c10::aten::linalg_norm,
      c10::aten::std,
      c10::aten::var,
      c10::aten::std_mean,
      c10::aten::var_mean,
      c10::aten::logsumexp,
      c10::aten::group_norm,
      c10::aten::instance_norm,
      c10::aten::dot,
      c10::aten::vdot,
      c10::aten::mv,
      c10::aten::dist,
      c10::aten::cosine_similarity,
      c10::aten::pairwise_distance,
  };
  static const auto* const kLaysOutAfresh = new std::vector<c10::Symbol>{
      c10::aten::contiguous,  c10::aten::matmul,     c10::aten::mm,           c10::aten::bmm,
      c10::aten::addmm,       c10::aten::baddbmm,    c10::aten::linear,       c10::aten::conv1d,
      c10::aten::conv2d,      c10::aten::conv3d,     c10::aten::_convolution, c10::aten::softmax,
      c10::aten::log_softmax, c10::aten::layer_norm, ops::kConv2dFused,       ops::kLinearFused,
  };
  absl::flat_hash_set<const torch::jit::Value*> seen = {value};
  std::vector<const torch::jit::Value*> pending = {value};
  while (!pending.empty()) {
    const torch::jit::Value* current = pending.back();
    pending.pop_back();
    for (const torch::jit::Use& use : current->uses()) {
      const torch::jit::Node* user = use.user;
      if (user == user->owningGraph()->return_node()) continue;
      if (user->kind() == c10::prim::Return || !user->blocks().empty() ||
          IsOneOf(user, *kAddsInMemoryOrder)) {
        return true;
      }
      if (IsOneOf(user, *kLaysOutAfresh)) continue;
      for (const torch::jit::Value* output : user->outputs()) {
        if (seen.insert(output).second) pending.push_back(output);
      }
    }
  }
  return false;
}

// Whether `contiguous` asks for the contiguous format (a constant): the
// layout its copy variant makes.
bool InContiguousFormat(const torch::jit::Node* contiguous) {
  const c10::optional<c10::IValue> format = torch::jit::toIValue(contiguous->input(1));
  return format && format->isInt() && format->toMemoryFormat() == at::MemoryFormat::Contiguous;
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
    if (node->kind() == c10::aten::contiguous && !InContiguousFormat(node)) continue;
    if (alias_db.hasWriters(node->input(0)) || alias_db.hasWriters(view) ||
        alias_db.mayContainAlias(view, graph->outputs()) || MemoryOrderIsObserved(view)) {
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
