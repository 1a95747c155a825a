#include "ir/graph_util.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace static_runtime {
namespace {

void Collect(torch::jit::Block* block, std::vector<torch::jit::Node*>& nodes) {
  for (torch::jit::Node* node : block->nodes()) {
    nodes.push_back(node);
    for (torch::jit::Block* sub_block : node->blocks()) Collect(sub_block, nodes);
  }
}

}  // namespace

std::vector<torch::jit::Node*> AllNodes(torch::jit::Block* block) {
  std::vector<torch::jit::Node*> nodes;
  Collect(block, nodes);
  return nodes;
}

torch::jit::Node* AncestorIn(torch::jit::Node* node, const torch::jit::Block* block) {
  while (node->owningBlock() != block) node = node->owningBlock()->owningNode();
  return node;
}

bool ReturnsViewOrCopyByStrides(c10::Symbol kind) {
  return kind == c10::aten::reshape || kind == c10::aten::reshape_as ||
         kind == c10::aten::flatten || kind == c10::aten::contiguous;
}

bool ReadsStrides(const torch::jit::Node* node) {
  static const c10::Symbol kIsContiguous = c10::Symbol::fromQualString("aten::is_contiguous");
  return node->kind() == c10::aten::stride || node->kind() == kIsContiguous;
}

bool IsOverload(const torch::jit::Node* node, const char* name, const char* overload) {
  if (node->kind() != c10::Symbol::fromQualString(name)) return false;
  const c10::FunctionSchema* schema = node->maybeSchema();
  return schema != nullptr && schema->overload_name() == overload;
}

torch::jit::Node* ReplaceNode(torch::jit::Node* node, c10::Symbol kind,
                              at::ArrayRef<torch::jit::Value*> inputs) {
  torch::jit::Node* replacement = node->owningGraph()->create(kind, inputs, 1);
  replacement->insertBefore(node);
  replacement->copyMetadata(node);
  replacement->output()->copyMetadata(node->output());
  node->output()->replaceAllUsesWith(replacement->output());
  node->destroy();
  return replacement;
}

std::string SourceOf(const torch::jit::Node* node) {
  const torch::jit::SourceRange& range = node->sourceRange();
  if (!range.source()) return "<unknown source>";
  const auto& source = range.source();
  const size_t line = source->lineno_for_offset(range.start());
  const std::string text = source->get_line(line).str();
  std::string where = absl::StrCat("line ", line + 1);
  if (auto file_line_col = range.file_line_col()) {
    const auto& [file, file_line, col] = *file_line_col;
    where = absl::StrCat(file, ":", file_line, ":", col);
  }
  return absl::StrCat(where, " `", absl::StripAsciiWhitespace(text), "`");
}

bool MayHoldTensor(const c10::TypePtr& type) {
  switch (type->kind()) {
    case c10::TypeKind::IntType:
    case c10::TypeKind::FloatType:
    case c10::TypeKind::BoolType:
    case c10::TypeKind::StringType:
    case c10::TypeKind::NoneType:
    case c10::TypeKind::DeviceObjType:
    case c10::TypeKind::NumberType:
    case c10::TypeKind::ComplexType:
      return false;
    case c10::TypeKind::OptionalType:
      return MayHoldTensor(type->expectRef<c10::OptionalType>().getElementType());
    case c10::TypeKind::TupleType:
      for (const c10::TypePtr& element : type->containedTypes()) {
        if (MayHoldTensor(element)) return true;
      }
      return false;
    default:
      return true;  // tensors, lists, dicts, objects, Any, ...
  }
}

}  // namespace static_runtime
