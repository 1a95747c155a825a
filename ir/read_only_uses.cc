#include "ir/read_only_uses.h"

#include "absl/container/flat_hash_set.h"
#include "ir/operators/operators.h"

namespace static_runtime {

bool MayReturnItsInput(const torch::jit::Node* node) {
  static const auto* const kOps = new absl::flat_hash_set<c10::Symbol>{
      c10::aten::dropout,
      c10::aten::feature_dropout,
      c10::aten::alpha_dropout,
      c10::aten::feature_alpha_dropout,
      c10::aten::type_as,
      c10::Symbol::fromQualString("aten::_cast_Byte"),
      c10::Symbol::fromQualString("aten::_cast_Char"),
      c10::Symbol::fromQualString("aten::_cast_Double"),
      c10::Symbol::fromQualString("aten::_cast_Float"),
      c10::Symbol::fromQualString("aten::_cast_Half"),
      c10::Symbol::fromQualString("aten::_cast_Int"),
      c10::Symbol::fromQualString("aten::_cast_Long"),
      c10::Symbol::fromQualString("aten::_cast_Short"),
  };
  return kOps->contains(node->kind());
}

bool ReturnsAnAlias(const torch::jit::Node* node) {
  const c10::FunctionSchema* schema = node->maybeSchema();
  if (schema == nullptr || MayReturnItsInput(node)) return true;
  for (const c10::Argument& result : schema->returns()) {
    if (result.alias_info() != nullptr) return true;
  }
  return false;
}

bool IsView(const torch::jit::Node* node) {
  const c10::FunctionSchema* schema = node->maybeSchema();
  if (schema == nullptr || schema->is_vararg() || schema->returns().size() != 1 ||
      node->outputs().size() != 1 || node->output()->type()->kind() != c10::TypeKind::TensorType) {
    return false;
  }
  const c10::AliasInfo* result = schema->returns()[0].alias_info();
  if (MayReturnItsInput(node)) return result == nullptr;
  if (result == nullptr || result->isWrite()) return false;
  for (const c10::Argument& argument : schema->arguments()) {
    if (argument.alias_info() != nullptr && argument.alias_info()->isWrite()) return false;
  }
  return true;
}

bool SchemaSaysOnlyReads(const torch::jit::Node* node, size_t offset) {
  const c10::FunctionSchema* schema = node->maybeSchema();
  if (schema == nullptr || schema->is_vararg() || offset >= schema->arguments().size() ||
      (offset == 0 && MayReturnItsInput(node))) {
    return false;
  }
  return schema->arguments()[offset].alias_info() == nullptr;
}

bool SchemaSaysStores(const torch::jit::Node* node, size_t offset) {
  const c10::FunctionSchema* schema = node->maybeSchema();
  if (schema == nullptr || offset >= schema->arguments().size()) return false;
  const c10::AliasInfo* alias_info = schema->arguments()[offset].alias_info();
  return alias_info != nullptr && alias_info->isWildcardAfter();
}

const torch::jit::Value* ListReceiving(const torch::jit::Use& use) {
  const torch::jit::Node* user = use.user;
  if (user->kind() == c10::prim::ListConstruct) return user->output();
  if (user->kind() == c10::aten::append && use.offset == 1) return user->input(0);
  return nullptr;
}

bool ElementsOnlyRead(const torch::jit::Value* list) {
  if (list->node()->kind() != c10::prim::ListConstruct) return false;
  for (const torch::jit::Use& use : list->uses()) {
    const torch::jit::Node* user = use.user;
    const c10::Symbol kind = user->kind();
    const bool appends = kind == c10::aten::append && use.offset == 0 && !user->output()->hasUses();
    const bool reads =
        (kind == c10::aten::stack || kind == c10::aten::cat || kind == c10::aten::len) &&
        use.offset == 0 && user->maybeSchema() != nullptr && !ReturnsAnAlias(user);
    if (!appends && !reads) return false;
  }
  return true;
}

bool OnlyReadWithinRun(const torch::jit::Value* value) {
  if (value->type()->kind() != c10::TypeKind::TensorType) return false;
  for (const torch::jit::Use& use : value->uses()) {
    const torch::jit::Node* user = use.user;
    // Our variadic operators read their inputs and return fresh tensors.
    if (ops::OnlyReadsInputs(user->kind())) continue;
    if (const torch::jit::Value* list = ListReceiving(use)) {
      if (ElementsOnlyRead(list)) continue;
      return false;
    }
    if (SchemaSaysOnlyReads(user, use.offset)) continue;
    if (IsView(user) && OnlyReadWithinRun(user->output())) continue;
    // The result of a branch of an if: the if's result must be only read.
    if (user->kind() == c10::prim::Return) {
      const torch::jit::Node* owner = user->owningBlock()->owningNode();
      if (owner != nullptr && owner->kind() == c10::prim::If &&
          OnlyReadWithinRun(owner->outputs()[use.offset])) {
        continue;
      }
    }
    return false;
  }
  return true;
}

}  // namespace static_runtime
