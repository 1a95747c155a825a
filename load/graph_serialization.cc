#include "load/graph_serialization.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "errors/exception_message.h"
#include "errors/status_from_exception.h"
#include "errors/status_macros.h"
#include "load/load.h"
#include "torch/csrc/jit/frontend/script_type_parser.h"

namespace static_runtime {
namespace {

using torch::jit::AttributeKind;
using torch::jit::Block;
using torch::jit::Node;

constexpr absl::string_view kMarkerPrefix = "sr_";
constexpr int kMaxSubgraphDepth = 16;

// The attribute kinds kept as table entries, by the name in their marker.
struct TabledKind {
  AttributeKind kind;
  const char* name;
};
constexpr TabledKind kTabledKinds[] = {
    {AttributeKind::f, "f"},     {AttributeKind::fs, "fs"},     {AttributeKind::c, "c"},
    {AttributeKind::cs, "cs"},   {AttributeKind::s, "s"},       {AttributeKind::ss, "ss"},
    {AttributeKind::t, "t"},     {AttributeKind::ts, "ts"},     {AttributeKind::g, "g"},
    {AttributeKind::gs, "gs"},   {AttributeKind::ival, "ival"}, {AttributeKind::ty, "ty"},
    {AttributeKind::tys, "tys"},
};

const TabledKind* FindTabledKind(AttributeKind kind) {
  for (const TabledKind& tabled : kTabledKinds) {
    if (tabled.kind == kind) return &tabled;
  }
  return nullptr;
}

const TabledKind* FindTabledKind(absl::string_view name) {
  for (const TabledKind& tabled : kTabledKinds) {
    if (name == tabled.name) return &tabled;
  }
  return nullptr;
}

absl::StatusOr<c10::TypePtr> ParsedType(const std::string& text) {
  try {
    return torch::jit::ScriptTypeParser().parseType(text);
  } catch (const std::exception& e) {
    return StatusFromException(e, absl::StrCat("the type '", text, "'"));
  }
}

// "Future[Tensor[]]" -> "Future(Tensor[])", everywhere in `line`.
void ParenthesizeFutureTypes(std::string& line) {
  static constexpr char kFuture[] = "Future[";
  for (size_t at = line.find(kFuture); at != std::string::npos; at = line.find(kFuture, at + 1)) {
    const size_t open = at + sizeof(kFuture) - 2;
    int depth = 0;
    for (size_t i = open; i < line.size(); ++i) {
      depth += line[i] == '[' ? 1 : line[i] == ']' ? -1 : 0;
      if (depth == 0) {
        line[open] = '(';
        line[i] = ')';
        break;
      }
    }
  }
}

// A type attribute's value form: its annotation ("Tensor", "List[int]"),
// which TorchScript's type parser reads back; an error for a type it does not give back
// (a class: the parser knows no compilation unit).
absl::StatusOr<std::string> TypeText(const c10::TypePtr& type) {
  const std::string text = type->annotation_str();
  absl::StatusOr<c10::TypePtr> parsed = ParsedType(text);
  if (!parsed.ok() || **parsed != *type) {
    return absl::InvalidArgumentError(
        absl::StrCat("the type ", text, " does not read back from its annotation"));
  }
  return text;
}

class Serializer {
 public:
  explicit Serializer(std::vector<c10::IValue>& table) : table_(table) {}

  absl::StatusOr<std::string> Serialize(const torch::jit::Graph& graph) {
    // Graph::copy does not change the graph but is not declared const.
    std::shared_ptr<torch::jit::Graph> copy = const_cast<torch::jit::Graph&>(graph).copy();
    RETURN_IF_ERROR(ReplaceAttributes(copy->block()));
    // LibTorch's parser reads a future type written Future(T), not Future[T]
    // as the printer writes it, and a node without outputs written without the
    // " = " the printer puts after the (empty) outputs.
    std::vector<std::string> lines =
        absl::StrSplit(copy->toString(/*print_source_locations=*/false), '\n');
    for (std::string& line : lines) {
      const size_t indent = line.find_first_not_of(' ');
      ParenthesizeFutureTypes(line);
      if (indent != std::string::npos && indent > 0 &&
          absl::string_view(line).substr(indent, 2) == "= ") {
        line.erase(indent - 1, 3);
      }
    }
    return absl::StrJoin(lines, "\n");
  }

 private:
  // A name the printer writes but the parser reads as a number and a name
  // (a digit first, e.g. "6_fused_bn" of freezing) gets a "v" in front.
  static void MakeNamesParseable(at::ArrayRef<torch::jit::Value*> values) {
    for (torch::jit::Value* value : values) {
      if (value->hasDebugName() && absl::ascii_isdigit(value->debugName()[0])) {
        value->setDebugName("v" + value->debugName());
      }
    }
  }

  absl::Status ReplaceAttributes(Block* block) {
    MakeNamesParseable(block->inputs());
    for (Node* node : block->nodes()) {
      MakeNamesParseable(node->outputs());
      for (const c10::Symbol name : node->attributeNames()) {
        const AttributeKind kind = node->kindOf(name);
        if (kind == AttributeKind::i || kind == AttributeKind::is) continue;
        const TabledKind* tabled = FindTabledKind(kind);
        absl::StatusOr<c10::IValue> value =
            tabled == nullptr
                ? absl::InvalidArgumentError("attributes of its kind have no value form")
                : ValueOf(*node, name, kind);
        if (!value.ok()) {
          return absl::InvalidArgumentError(
              absl::StrCat("cannot serialize attribute '", name.toUnqualString(), "' of node ",
                           node->kind().toQualString(), ": ", value.status().message()));
        }
        node->removeAttribute(name);
        node->i_(c10::Symbol::attr(
                     absl::StrCat(kMarkerPrefix, tabled->name, "__", name.toUnqualString())),
                 static_cast<int64_t>(table_.size()));
        table_.push_back(*std::move(value));
      }
      for (Block* sub_block : node->blocks()) {
        RETURN_IF_ERROR(ReplaceAttributes(sub_block));
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<c10::IValue> ValueOf(const Node& node, c10::Symbol name, AttributeKind kind) {
    switch (kind) {
      case AttributeKind::f:
        return c10::IValue(node.f(name));
      case AttributeKind::fs:
        return c10::IValue(node.fs(name));
      case AttributeKind::c:
        return c10::IValue(node.c(name));
      case AttributeKind::cs:
        return c10::IValue(c10::List<c10::complex<double>>(node.cs(name)));
      case AttributeKind::s:
        return c10::IValue(node.s(name));
      case AttributeKind::ss:
        return c10::IValue(node.ss(name));
      case AttributeKind::t:
        return c10::IValue(node.t(name));
      case AttributeKind::ts:
        return c10::IValue(node.ts(name));
      case AttributeKind::g:
        return Serialize(*node.g(name));
      case AttributeKind::gs: {
        std::vector<std::string> graphs;
        for (const std::shared_ptr<torch::jit::Graph>& graph : node.gs(name)) {
          ASSIGN_OR_RETURN(std::string text, Serialize(*graph));
          graphs.push_back(std::move(text));
        }
        return c10::IValue(std::move(graphs));
      }
      case AttributeKind::ty: {
        ASSIGN_OR_RETURN(std::string text, TypeText(node.ty(name)));
        return c10::IValue(std::move(text));
      }
      case AttributeKind::tys: {
        std::vector<std::string> texts;
        for (const c10::TypePtr& type : node.tys(name)) {
          ASSIGN_OR_RETURN(std::string text, TypeText(type));
          texts.push_back(std::move(text));
        }
        return c10::IValue(std::move(texts));
      }
      default:
        return c10::IValue(node.ival(name));
    }
  }

  absl::StatusOr<c10::IValue> Serialize(std::shared_ptr<torch::jit::Graph> graph) {
    ASSIGN_OR_RETURN(std::string text, Serialize(*graph));
    return c10::IValue(std::move(text));
  }

  std::vector<c10::IValue>& table_;
};

class Deserializer {
 public:
  explicit Deserializer(const std::vector<c10::IValue>& table) : table_(table) {}

  absl::StatusOr<std::shared_ptr<torch::jit::Graph>> Deserialize(absl::string_view ir, int depth) {
    if (depth > kMaxSubgraphDepth) {
      return absl::InvalidArgumentError(
          absl::StrCat("subgraphs nested more than ", kMaxSubgraphDepth, " deep"));
    }
    ASSIGN_OR_RETURN(std::shared_ptr<torch::jit::Graph> graph,
                     ParseGraphIR(ir, /*keep_value_names=*/true));
    RETURN_IF_ERROR(RestoreAttributes(graph->block(), depth));
    return graph;
  }

 private:
  absl::Status RestoreAttributes(Block* block, int depth) {
    for (Node* node : block->nodes()) {
      for (const c10::Symbol name : node->attributeNames()) {
        const std::string marker = name.toUnqualString();
        if (!absl::StartsWith(marker, kMarkerPrefix)) continue;
        absl::Status status = Restore(node, name, marker, depth);
        if (!status.ok()) {
          return absl::InvalidArgumentError(absl::StrCat("attribute '", marker, "' of node ",
                                                         node->kind().toQualString(), ": ",
                                                         status.message()));
        }
      }
      for (Block* sub_block : node->blocks()) {
        RETURN_IF_ERROR(RestoreAttributes(sub_block, depth));
      }
    }
    return absl::OkStatus();
  }

  absl::Status Restore(Node* node, c10::Symbol marker_name, const std::string& marker, int depth) {
    const std::vector<absl::string_view> parts = absl::StrSplit(
        absl::string_view(marker).substr(kMarkerPrefix.size()), absl::MaxSplits("__", 1));
    const TabledKind* tabled = parts.size() == 2 ? FindTabledKind(parts[0]) : nullptr;
    if (tabled == nullptr || parts[1].empty()) return absl::InvalidArgumentError("unknown kind");
    if (node->kindOf(marker_name) != AttributeKind::i) {
      return absl::InvalidArgumentError("not a table index");
    }
    const int64_t index = node->i(marker_name);
    if (index < 0 || index >= static_cast<int64_t>(table_.size())) {
      return absl::InvalidArgumentError(
          absl::StrCat("table index ", index, " out of range [0, ", table_.size(), ")"));
    }
    const c10::IValue& value = table_[index];
    const c10::Symbol name = c10::Symbol::attr(std::string(parts[1]));
    if (node->hasAttribute(name)) return absl::InvalidArgumentError("attribute given twice");
    RETURN_IF_ERROR(Set(node, name, tabled->kind, value, depth));
    node->removeAttribute(marker_name);
    return absl::OkStatus();
  }

  absl::Status Set(Node* node, c10::Symbol name, AttributeKind kind, const c10::IValue& value,
                   int depth) {
    const auto wrong_kind = [&] {
      return absl::InvalidArgumentError(
          absl::StrCat("table entry of type ", value.tagKind(), " for this kind"));
    };
    switch (kind) {
      case AttributeKind::f:
        if (!value.isDouble()) return wrong_kind();
        node->f_(name, value.toDouble());
        return absl::OkStatus();
      case AttributeKind::fs:
        if (!value.isDoubleList()) return wrong_kind();
        node->fs_(name, value.toDoubleVector());
        return absl::OkStatus();
      case AttributeKind::c:
        if (!value.isComplexDouble()) return wrong_kind();
        node->c_(name, value.toComplexDouble());
        return absl::OkStatus();
      case AttributeKind::cs:
        if (!value.isComplexDoubleList()) return wrong_kind();
        node->cs_(name, value.toComplexDoubleVector());
        return absl::OkStatus();
      case AttributeKind::s:
        if (!value.isString()) return wrong_kind();
        node->s_(name, value.toStringRef());
        return absl::OkStatus();
      case AttributeKind::ss:
        if (!IsListOf(value, &c10::IValue::isString)) return wrong_kind();
        node->ss_(name, value.to<std::vector<std::string>>());
        return absl::OkStatus();
      case AttributeKind::t:
        if (!value.isTensor()) return wrong_kind();
        node->t_(name, value.toTensor());
        return absl::OkStatus();
      case AttributeKind::ts:
        if (!value.isTensorList()) return wrong_kind();
        node->ts_(name, value.toTensorVector());
        return absl::OkStatus();
      case AttributeKind::g: {
        if (!value.isString()) return wrong_kind();
        ASSIGN_OR_RETURN(std::shared_ptr<torch::jit::Graph> graph,
                         Deserialize(value.toStringRef(), depth + 1));
        node->g_(name, std::move(graph));
        return absl::OkStatus();
      }
      case AttributeKind::gs: {
        if (!IsListOf(value, &c10::IValue::isString)) return wrong_kind();
        std::vector<std::shared_ptr<torch::jit::Graph>> graphs;
        for (const c10::IValue& text : value.toListRef()) {
          ASSIGN_OR_RETURN(std::shared_ptr<torch::jit::Graph> graph,
                           Deserialize(text.toStringRef(), depth + 1));
          graphs.push_back(std::move(graph));
        }
        node->gs_(name, std::move(graphs));
        return absl::OkStatus();
      }
      case AttributeKind::ty: {
        if (!value.isString()) return wrong_kind();
        ASSIGN_OR_RETURN(c10::TypePtr type, ParsedType(value.toStringRef()));
        node->ty_(name, std::move(type));
        return absl::OkStatus();
      }
      case AttributeKind::tys: {
        if (!IsListOf(value, &c10::IValue::isString)) return wrong_kind();
        std::vector<c10::TypePtr> types;
        for (const c10::IValue& text : value.toListRef()) {
          ASSIGN_OR_RETURN(c10::TypePtr type, ParsedType(text.toStringRef()));
          types.push_back(std::move(type));
        }
        node->tys_(name, std::move(types));
        return absl::OkStatus();
      }
      default:
        node->ival_(name, value);
        return absl::OkStatus();
    }
  }

  static bool IsListOf(const c10::IValue& value, bool (c10::IValue::*is_element)() const) {
    if (!value.isList()) return false;
    for (const c10::IValue& element : value.toListRef()) {
      if (!(element.*is_element)()) return false;
    }
    return true;
  }

  const std::vector<c10::IValue>& table_;
};

}  // namespace

absl::StatusOr<SerializedGraph> SerializeGraph(const torch::jit::Graph& graph) {
  SerializedGraph serialized;
  try {
    ASSIGN_OR_RETURN(serialized.ir, Serializer(serialized.table).Serialize(graph));
  } catch (const std::exception& e) {
    return StatusFromException(e,
                               "cannot serialize the graph: ", absl::StatusCode::kInvalidArgument);
  }
  return serialized;
}

absl::StatusOr<std::shared_ptr<torch::jit::Graph>> DeserializeGraph(
    absl::string_view ir, const std::vector<c10::IValue>& table) {
  try {
    ASSIGN_OR_RETURN(std::shared_ptr<torch::jit::Graph> graph,
                     Deserializer(table).Deserialize(ir, 0));
    graph->lint();
    return graph;
  } catch (const std::exception& e) {
    return StatusFromException(
        e, "the serialized graph is malformed: ", absl::StatusCode::kInvalidArgument);
  }
}

}  // namespace static_runtime
