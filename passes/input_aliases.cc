#include "passes/input_aliases.h"

#include "ir/graph_util.h"
#include "ir/operators/operators.h"

namespace static_runtime {
namespace {

using torch::jit::Block;
using torch::jit::Node;
using torch::jit::Value;

void Add(InputSet& to, const InputSet& from) { to.insert(from.begin(), from.end()); }

bool IsContainer(const c10::TypePtr& type) {
  switch (type->kind()) {
    case c10::TypeKind::ListType:
    case c10::TypeKind::TupleType:
    case c10::TypeKind::DictType:
    case c10::TypeKind::OptionalType:
    case c10::TypeKind::AnyType:
      return true;
    default:
      return false;
  }
}

// The alias sets an annotation names, those of contained types included
// (`Tensor(a)[]` names `a` on its element type).
void CollectSets(const c10::AliasInfo& info, std::set<c10::Symbol>& sets) {
  sets.insert(info.beforeSets().begin(), info.beforeSets().end());
  for (const c10::AliasInfo& contained : info.containedTypes()) CollectSets(contained, sets);
}

bool SharesAliasSet(const c10::AliasInfo& a, const c10::AliasInfo& b) {
  std::set<c10::Symbol> a_sets, b_sets;
  CollectSets(a, a_sets);
  CollectSets(b, b_sets);
  for (const c10::Symbol& set : a_sets) {
    if (b_sets.count(set)) return true;
  }
  return false;
}

// Ops that return their argument only when it already has the requested
// dtype, device or layout and otherwise copy: treated as copies (see header).
bool CopiesOrReturnsItsArgument(c10::Symbol kind) {
  return kind == c10::aten::to || kind == ops::kMaybeCopyTo || ReturnsViewOrCopyByStrides(kind);
}

}  // namespace

InputAliases::InputAliases(const std::shared_ptr<torch::jit::Graph>& graph) {
  for (size_t i = 0; i < graph->inputs().size(); ++i) {
    Merge(graph->inputs()[i], {i}, {i});
  }
  VisitBlock(graph->block());
}

const InputAliases::Sets& InputAliases::Get(const Value* value) const {
  static const Sets kEmpty;
  auto found = sets_.find(value);
  return found == sets_.end() ? kEmpty : found->second;
}

InputSet InputAliases::Aliases(const Value* value) const { return Get(value).aliases; }
InputSet InputAliases::Contains(const Value* value) const { return Get(value).contains; }

bool InputAliases::Merge(const Value* value, const InputSet& aliases, const InputSet& contains) {
  if (!MayHoldTensor(value->type()) || (aliases.empty() && contains.empty())) return false;
  Sets& sets = sets_[value];
  const size_t before = sets.aliases.size() + sets.contains.size();
  Add(sets.aliases, aliases);
  Add(sets.contains, contains);
  return sets.aliases.size() + sets.contains.size() != before;
}

bool InputAliases::VisitBlock(Block* block) {
  bool changed = false;
  for (Node* node : block->nodes()) changed |= VisitNode(node);
  return changed;
}

bool InputAliases::VisitNode(Node* node) {
  const c10::Symbol kind = node->kind();
  if (kind == c10::prim::If) {
    bool changed = false;
    for (Block* block : node->blocks()) {
      changed |= VisitBlock(block);
      for (size_t i = 0; i < node->outputs().size(); ++i) {
        const Sets& yielded = Get(block->outputs()[i]);
        changed |= Merge(node->output(i), yielded.aliases, yielded.contains);
      }
    }
    return changed;
  }
  if (kind == c10::prim::Loop) return VisitLoop(node);
  if (CopiesOrReturnsItsArgument(kind)) return false;

  // Everything any input aliases or contains.
  InputSet reachable;
  for (const Value* input : node->inputs()) {
    Add(reachable, Get(input).aliases);
    Add(reachable, Get(input).contains);
  }
  if (reachable.empty()) return false;
  if (kind == c10::prim::ListConstruct || kind == c10::prim::TupleConstruct ||
      kind == c10::prim::DictConstruct) {
    return Merge(node->output(), {}, reachable);
  }
  if (kind == c10::prim::ListUnpack || kind == c10::prim::TupleUnpack ||
      kind == c10::prim::TupleIndex || kind == ops::kUnpackDict) {
    const Sets& container = Get(node->input(0));
    InputSet elements = container.contains;
    Add(elements, container.aliases);
    bool changed = false;
    for (const Value* output : node->outputs()) changed |= Merge(output, elements, elements);
    return changed;
  }
  const c10::FunctionSchema* schema = node->maybeSchema();
  const torch::jit::Operator* op = schema != nullptr ? node->maybeOperator() : nullptr;
  if (schema != nullptr && op != nullptr &&
      op->aliasAnalysisKind() == c10::AliasAnalysisKind::FROM_SCHEMA) {
    return VisitSchemaNode(node, *schema);
  }
  if (op != nullptr && op->aliasAnalysisKind() == c10::AliasAnalysisKind::PURE_FUNCTION) {
    return false;
  }
  bool changed = false;
  for (const Value* output : node->outputs()) changed |= Merge(output, reachable, reachable);
  return changed;
}

bool InputAliases::VisitLoop(Node* node) {
  // Inputs: max trip count, condition, carried...; block inputs: iteration,
  // carried...; block outputs: condition, carried...; node outputs: carried.
  Block* body = node->blocks()[0];
  const size_t carried = node->outputs().size();
  bool changed = false;
  for (size_t i = 0; i < carried; ++i) {
    const Sets& initial = Get(node->input(2 + i));
    changed |= Merge(body->inputs()[1 + i], initial.aliases, initial.contains);
    changed |= Merge(node->output(i), initial.aliases, initial.contains);
  }
  // Monotone over finitely many inputs, so this ends.
  for (bool again = true; again;) {
    again = VisitBlock(body);
    for (size_t i = 0; i < carried; ++i) {
      const Sets yielded = Get(body->outputs()[1 + i]);
      again |= Merge(body->inputs()[1 + i], yielded.aliases, yielded.contains);
      again |= Merge(node->output(i), yielded.aliases, yielded.contains);
    }
    changed |= again;
  }
  return changed;
}

bool InputAliases::VisitSchemaNode(Node* node, const c10::FunctionSchema& schema) {
  const auto& arguments = schema.arguments();
  const size_t num_arguments = std::min(arguments.size(), node->inputs().size());
  // What arguments annotated `-> *` (stored somewhere) alias or contain.
  InputSet escaping;
  for (size_t i = 0; i < num_arguments; ++i) {
    const c10::AliasInfo* info = arguments[i].alias_info();
    if (info == nullptr || !info->isWildcardAfter()) continue;
    Add(escaping, Get(node->input(i)).aliases);
    Add(escaping, Get(node->input(i)).contains);
  }
  bool changed = false;
  // Writes that store arguments into a container.
  for (size_t k = 0; k < num_arguments; ++k) {
    const c10::AliasInfo* written = arguments[k].alias_info();
    if (written == nullptr || !written->isWrite()) continue;
    changed |= Merge(node->input(k), {}, escaping);
  }
  for (size_t j = 0; j < schema.returns().size() && j < node->outputs().size(); ++j) {
    const c10::AliasInfo* out = schema.returns()[j].alias_info();
    const Value* output = node->output(j);
    if (out == nullptr) {
      // A fresh tensor; a fresh container may hold what escaped (split).
      if (IsContainer(output->type())) changed |= Merge(output, {}, escaping);
      continue;
    }
    InputSet aliases, contains;
    for (size_t i = 0; i < num_arguments; ++i) {
      const c10::AliasInfo* info = arguments[i].alias_info();
      const Sets& argument = Get(node->input(i));
      if (out->isWildcardBefore()) {  // e.g. __getitem__: any element
        Add(aliases, argument.aliases);
        Add(aliases, argument.contains);
        Add(contains, argument.aliases);
        Add(contains, argument.contains);
        continue;
      }
      if (info == nullptr || !SharesAliasSet(*out, *info)) continue;
      if (IsContainer(output->type()) && !IsContainer(node->input(i)->type())) {
        Add(contains, argument.aliases);  // e.g. split: a list of views
      } else {
        Add(aliases, argument.aliases);
        Add(contains, argument.contains);
      }
    }
    changed |= Merge(output, aliases, contains);
  }
  return changed;
}

}  // namespace static_runtime
