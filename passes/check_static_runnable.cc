#include "passes/check_static_runnable.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/graph_util.h"
#include "passes/input_aliases.h"
#include "torch/csrc/jit/ir/alias_analysis.h"

namespace static_runtime {
namespace {

using torch::jit::Node;

// A constant argument to a dtype, layout or memory-format parameter that
// names none: LibTorch 1.13 crashes formatting the error for an unknown
// dtype (found by //fuzz:ir_fuzzer), so the check rejects it first.
std::string BadEnumArgument(const Node* node) {
  const c10::FunctionSchema* schema = node->maybeSchema();
  if (schema == nullptr) return "";
  for (size_t i = 0; i < schema->arguments().size() && i < node->inputs().size(); ++i) {
    c10::TypePtr type = schema->arguments()[i].real_type();
    if (type->kind() == c10::TypeKind::OptionalType) type = type->containedType(0);
    int64_t limit = 0;
    if (type->kind() == c10::TypeKind::ScalarTypeType) {
      limit = static_cast<int64_t>(c10::ScalarType::NumOptions);
    } else if (type->kind() == c10::TypeKind::LayoutType) {
      limit = static_cast<int64_t>(c10::Layout::NumOptions);
    } else if (type->kind() == c10::TypeKind::MemoryFormatType) {
      limit = static_cast<int64_t>(c10::MemoryFormat::NumOptions);
    } else {
      continue;
    }
    c10::optional<c10::IValue> value;
    try {
      value = torch::jit::toIValue(node->input(i));
    } catch (const std::exception&) {
      return absl::StrCat("argument '", schema->arguments()[i].name(),
                          "' is a constant without a value");
    }
    if (value && value->isInt() && (value->toInt() < 0 || value->toInt() >= limit)) {
      return absl::StrCat("argument '", schema->arguments()[i].name(), "' is ", value->toInt(),
                          ", which names no ", type->str());
    }
  }
  return "";
}

// Why `node` cannot run on the static runtime, or "" if it can.
std::string ProblemWith(const Node* node) {
  if (std::string bad = BadEnumArgument(node); !bad.empty()) return bad;
  switch (node->kind()) {
    case c10::prim::CallFunction:
    case c10::prim::CallMethod:
      return "call left after inlining (the callee could not be inlined)";
    case c10::prim::fork:
      return node->hasAttribute(c10::attr::Subgraph)
                 ? ""
                 : "unsupported node kind: asynchronous execution without a subgraph";
    default:
      return "";
  }
}

// The graph inputs `node` may write to: through its written arguments (by
// its schema's annotations), or, for an operator whose aliasing is
// conservative, whatever AliasDb says.
InputSet WrittenGraphInputs(const std::shared_ptr<torch::jit::Graph>& graph, Node* node,
                            const InputAliases& input_aliases,
                            std::unique_ptr<torch::jit::AliasDb>& alias_db) {
  InputSet written;
  const c10::FunctionSchema* schema = node->maybeSchema();
  const torch::jit::Operator* op = schema != nullptr ? node->maybeOperator() : nullptr;
  if (op == nullptr) return written;  // prim nodes: construct, unpack, control flow
  if (op->aliasAnalysisKind() == c10::AliasAnalysisKind::FROM_SCHEMA) {
    for (size_t k = 0; k < schema->arguments().size() && k < node->inputs().size(); ++k) {
      const c10::AliasInfo* info = schema->arguments()[k].alias_info();
      if (info != nullptr && info->isWrite()) {
        const InputSet aliases = input_aliases.Aliases(node->input(k));
        written.insert(aliases.begin(), aliases.end());
      }
    }
  } else if (op->aliasAnalysisKind() == c10::AliasAnalysisKind::CONSERVATIVE) {
    if (alias_db == nullptr) alias_db = std::make_unique<torch::jit::AliasDb>(graph);
    for (size_t j = 0; j < graph->inputs().size(); ++j) {
      if (alias_db->writesToAlias(node, {graph->inputs()[j]})) written.insert(j);
    }
  }
  return written;
}

// "node #i <kind> at <source>: <what>".
std::string DescribeNode(const std::vector<Node*>& nodes, size_t index, const std::string& what) {
  return absl::StrCat("node #", index, " ", nodes[index]->kind().toQualString(), " at ",
                      SourceOf(nodes[index]), ": ", what);
}

}  // namespace

absl::Status CheckStaticRunnable(const std::shared_ptr<torch::jit::Graph>& graph) {
  std::vector<std::string> problems;
  // Nodes are numbered in program order, sub-block nodes included.
  const std::vector<Node*> nodes = AllNodes(graph->block());
  for (size_t i = 0; i < nodes.size(); ++i) {
    std::string reason = ProblemWith(nodes[i]);
    if (!reason.empty()) problems.push_back(DescribeNode(nodes, i, reason));
  }
  if (problems.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("graph is not statically runnable (", problems.size(), " problem",
                   problems.size() == 1 ? "" : "s", "):\n  ", absl::StrJoin(problems, "\n  ")));
}

std::vector<std::string> GraphInputWrites(const std::shared_ptr<torch::jit::Graph>& graph) {
  std::vector<std::string> writes;
  const std::vector<Node*> nodes = AllNodes(graph->block());
  const InputAliases input_aliases(graph);
  std::unique_ptr<torch::jit::AliasDb> alias_db;  // for conservative ops only
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (size_t input : WrittenGraphInputs(graph, nodes[i], input_aliases, alias_db)) {
      writes.push_back(DescribeNode(
          nodes, i,
          absl::StrCat("mutates graph input %", graph->inputs()[input]->debugName(), " in place")));
    }
  }
  return writes;
}

}  // namespace static_runtime
