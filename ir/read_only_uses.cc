#include "ir/read_only_uses.h"

#include "ir/operators/operators.h"

namespace static_runtime {
namespace {

// Whether `list` is made by prim::ListConstruct and only appended to (the
// result unused) and read by ops that read its elements and return fresh
// tensors or a count: its elements are then only read.
bool ElementsOnlyRead(const torch::jit::Value* list) {
  if (list->node()->kind() != c10::prim::ListConstruct) return false;
  for (const torch::jit::Use& use : list->uses()) {
    const c10::Symbol kind = use.user->kind();
    const bool appended =
        kind == c10::aten::append && use.offset == 0 && !use.user->output()->hasUses();
    const bool read =
        (kind == c10::aten::cat || kind == c10::aten::stack || kind == c10::aten::len) &&
        use.offset == 0;
    if (!appended && !read) return false;
  }
  return true;
}

}  // namespace

bool OnlyReadWithinRun(const torch::jit::Value* value) {
  if (value->type()->kind() != c10::TypeKind::TensorType) return false;
  for (const torch::jit::Use& use : value->uses()) {
    const torch::jit::Node* user = use.user;
    // Our variadic operators read their inputs and return fresh tensors.
    if (ops::OnlyReadsInputs(user->kind())) continue;
    // An element of a list whose elements are only read.
    if (user->kind() == c10::prim::ListConstruct) {
      if (ElementsOnlyRead(user->output())) continue;
      return false;
    }
    if (user->kind() == c10::aten::append && use.offset == 1) {
      if (ElementsOnlyRead(user->input(0))) continue;
      return false;
    }
    const c10::FunctionSchema* schema = user->maybeSchema();
    if (schema == nullptr || schema->is_vararg() || use.offset >= schema->arguments().size()) {
      return false;
    }
    const c10::AliasInfo* alias = schema->arguments()[use.offset].alias_info();
    if (alias == nullptr) continue;  // neither written nor aliased
    if (alias->isWrite()) return false;
    // A view of it: every output must be a tensor that is only read.
    for (const c10::Argument& argument : schema->arguments()) {
      if (argument.alias_info() != nullptr && argument.alias_info()->isWrite()) return false;
    }
    for (const torch::jit::Value* output : user->outputs()) {
      if (!OnlyReadWithinRun(output)) return false;
    }
  }
  return true;
}

}  // namespace static_runtime
