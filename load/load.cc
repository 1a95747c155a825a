#include "load/load.h"

#include <algorithm>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <unordered_map>

#include "ATen/ATen.h"
#include "ATen/CPUGeneratorImpl.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "errors/exception_message.h"
#include "errors/status_from_exception.h"
#include "errors/status_macros.h"
#include "load/archive_check.h"
#include "load/pickle_check.h"
#include "torch/csrc/jit/frontend/resolver.h"
#include "torch/csrc/jit/frontend/sugared_value.h"
#include "torch/csrc/jit/ir/irparser.h"
#include "torch/csrc/jit/serialization/import.h"

namespace static_runtime {
namespace {

// LibTorch's IR parser recurses once per bracket level (types like
// `((((Tensor))))`); deep nesting overflows the stack (found by
// //fuzz:ir_fuzzer). Real graphs nest a few levels.
constexpr int kMaxBracketDepth = 64;

// The deepest nesting of (), [] and {} outside string literals.
int BracketDepth(absl::string_view text) {
  int depth = 0, deepest = 0;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote != 0) {
      if (c == '\\') {
        ++i;
      } else if (c == quote) {
        quote = 0;
      }
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '(' || c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ')' || c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

// What is wrong with the inputs, outputs or blocks of a structural node
// (unpacking, indexing, control flow, attributes), if anything. LibTorch's IR
// parser accepts any arity, and its passes and interpreter then read past
// their stack (a ListUnpack without input crashed ConstantPropagation: found
// by //fuzz:ir_fuzzer).
std::optional<std::string> StructureProblem(const torch::jit::Node* node) {
  using c10::prim::If;
  using c10::prim::Loop;
  const c10::Symbol kind = node->kind();
  const size_t inputs = node->inputs().size(), outputs = node->outputs().size();
  auto expect_inputs = [&](size_t count) -> std::optional<std::string> {
    if (inputs == count) return std::nullopt;
    return absl::StrCat("takes ", count, " input", count == 1 ? "" : "s", ", has ", inputs);
  };
  if (kind == c10::prim::ListUnpack) {
    if (inputs != 1) return expect_inputs(1);
    if (node->input()->type()->kind() != c10::TypeKind::ListType) return "unpacks a non-list";
  } else if (kind == c10::prim::TupleUnpack) {
    if (inputs != 1) return expect_inputs(1);
    const auto tuple = node->input()->type()->cast<c10::TupleType>();
    if (tuple == nullptr || tuple->elements().size() != outputs) {
      return absl::StrCat("unpacks ", node->input()->type()->str(), " into ", outputs, " values");
    }
  } else if (kind == c10::prim::TupleIndex) {
    if (inputs != 2) return expect_inputs(2);
    if (node->input(0)->type()->kind() != c10::TypeKind::TupleType) return "indexes a non-tuple";
  } else if (kind == c10::prim::NumToTensor || kind == c10::prim::unchecked_cast ||
             kind == c10::prim::GetAttr) {
    return expect_inputs(1);
  } else if (kind == c10::prim::SetAttr) {
    return expect_inputs(2);
  } else if (kind == c10::prim::DictConstruct && inputs % 2 != 0) {
    return absl::StrCat("takes key-value pairs, has ", inputs, " inputs");
  } else if (kind == If) {
    if (inputs != 1 || node->blocks().size() != 2) return "needs one condition and two blocks";
    for (const torch::jit::Block* block : node->blocks()) {
      if (block->outputs().size() != outputs) return "a block yields the wrong number of values";
    }
  } else if (kind == Loop) {
    if (inputs < 2 || node->blocks().size() != 1 || outputs != inputs - 2 ||
        node->blocks()[0]->inputs().size() != inputs - 1 ||
        node->blocks()[0]->outputs().size() != inputs - 1) {
      return "needs a trip count, a condition, carried values and one block that takes and "
             "yields them";
    }
  }
  return std::nullopt;
}

absl::Status CheckStructure(const torch::jit::Block* block) {
  for (const torch::jit::Node* node : block->nodes()) {
    if (const std::optional<std::string> problem = StructureProblem(node)) {
      return absl::InvalidArgumentError(
          absl::StrCat("malformed graph IR: ", node->kind().toQualString(), " ", *problem));
    }
    for (const torch::jit::Block* sub : node->blocks()) {
      RETURN_IF_ERROR(CheckStructure(sub));
    }
  }
  return absl::OkStatus();
}

// LibTorch's parser allocates tensor constants printed as `<Tensor>` without
// initialising them. Fills them, in graph order, from one fixed-seed generator
// (floating and complex types) or with zeros (integers, bool), so a parsed
// graph computes and prints the same values on every run and machine.
void FillTensorConstants(torch::jit::Block* block, at::Generator& generator) {
  for (torch::jit::Node* node : block->nodes()) {
    for (torch::jit::Block* sub_block : node->blocks()) {
      FillTensorConstants(sub_block, generator);
    }
    if (node->kind() != torch::jit::prim::Constant ||
        !node->hasAttribute(torch::jit::attr::value) ||
        node->kindOf(torch::jit::attr::value) != torch::jit::AttributeKind::t) {
      continue;
    }
    at::Tensor tensor = node->t(torch::jit::attr::value);
    if (at::isFloatingType(tensor.scalar_type()) || at::isComplexType(tensor.scalar_type())) {
      tensor.copy_(at::randn(tensor.sizes(), generator, tensor.options()));
    } else {
      tensor.zero_();
    }
  }
}

}  // namespace

absl::StatusOr<torch::jit::Module> LoadModuleFromBytes(absl::string_view bytes) {
  absl::StatusOr<std::vector<ArchiveRecord>> records = IndexArchive(bytes);
  absl::Status intact = records.status();
  for (size_t i = 0; intact.ok() && i < records->size(); ++i) {
    const ArchiveRecord& record = (*records)[i];
    if (record.stored && absl::EndsWith(record.name, ".pkl")) {
      intact = CheckPickle(record.data);
      if (!intact.ok())
        intact = absl::InvalidArgumentError(absl::StrCat(record.name, ": ", intact.message()));
    }
  }
  if (!intact.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("not a loadable TorchScript archive: ", intact.message()));
  }
  try {
    std::istringstream stream{std::string(bytes)};
    return torch::jit::load(stream, c10::Device(c10::kCPU));
  } catch (const std::exception& e) {
    return StatusFromException(e, "not a loadable TorchScript archive: ",
                               absl::StatusCode::kInvalidArgument, MessageLines::kFirstLine);
  }
}

absl::StatusOr<std::string> ReadModelFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  if (!file) {
    return absl::NotFoundError(absl::StrCat("cannot open model file '", path, "'"));
  }
  const std::streamoff size = file.tellg();
  std::string bytes(size > 0 ? static_cast<size_t>(size) : 0, '\0');
  file.seekg(0);
  if (size < 0 || !file.read(bytes.data(), size)) {
    return absl::NotFoundError(absl::StrCat("cannot read model file '", path, "'"));
  }
  return bytes;
}

absl::StatusOr<torch::jit::Module> LoadModuleFromFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::string bytes, ReadModelFile(path));
  absl::StatusOr<torch::jit::Module> module = LoadModuleFromBytes(bytes);
  if (!module.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("'", path, "' is ", module.status().message()));
  }
  return module;
}

std::string ForwardMethodName(const torch::jit::Module& module) {
  return module.find_method("forward") ? "forward" : "forward__0";
}

c10::FunctionSchema ForwardSchema(const torch::jit::Module& module) {
  const c10::FunctionSchema& schema =
      module.get_method(ForwardMethodName(module)).function().getSchema();
  return schema.cloneWithArguments(
      std::vector<c10::Argument>(schema.arguments().begin() + 1, schema.arguments().end()));
}

absl::StatusOr<std::shared_ptr<torch::jit::Graph>> ParseGraphIR(absl::string_view ir,
                                                                bool keep_value_names) {
  const int depth = BracketDepth(ir);
  if (depth > kMaxBracketDepth) {
    return absl::InvalidArgumentError(absl::StrCat("malformed graph IR: brackets nest ", depth,
                                                   " deep, at most ", kMaxBracketDepth,
                                                   " supported"));
  }
  auto graph = std::make_shared<torch::jit::Graph>();
  try {
    std::unordered_map<std::string, torch::jit::Value*> values_by_name;
    torch::jit::parseIR(std::string(ir), graph.get(), values_by_name,
                        /*parse_tensor_constants=*/true);
    if (keep_value_names) {
      for (const auto& [name, value] : values_by_name) {
        // Numbers are what the printer gives unnamed values.
        if (!std::all_of(name.begin(), name.end(), absl::ascii_isdigit)) {
          value->setDebugName(name);
        }
      }
    }
    graph->lint();
    at::Generator generator = at::detail::createCPUGenerator(/*seed_val=*/0);
    FillTensorConstants(graph->block(), generator);
  } catch (const std::exception& e) {
    return StatusFromException(e, "malformed graph IR: ", absl::StatusCode::kInvalidArgument);
  }
  RETURN_IF_ERROR(CheckStructure(graph->block()));
  return graph;
}

namespace {

// `ops`: operators of any namespace as `ops.NAMESPACE.op(...)`, as the code
// torch.jit.save writes calls them (ops.quantized.linear_dynamic, ...).
class OpNamespaces : public torch::jit::SugaredValue {
 public:
  std::string kind() const override { return "ops"; }
  std::shared_ptr<torch::jit::SugaredValue> attr(const torch::jit::SourceRange& loc,
                                                 torch::jit::GraphFunction& function,
                                                 const std::string& field) override {
    return std::make_shared<torch::jit::BuiltinModule>(field);
  }
};

// The builtins, `fork(fn, *args)` as TorchScript's printed code writes a
// forked call (the Python frontend's torch.jit._fork), and `ops`.
class SourceResolver : public torch::jit::Resolver {
 public:
  std::shared_ptr<torch::jit::SugaredValue> resolveValue(
      const std::string& name, torch::jit::GraphFunction& function,
      const torch::jit::SourceRange& loc) override {
    if (name == "fork") return torch::jit::SpecialFormValue::create(c10::prim::fork);
    if (name == "ops") return std::make_shared<OpNamespaces>();
    return torch::jit::nativeResolver()->resolveValue(name, function, loc);
  }
  c10::TypePtr resolveType(const std::string& name, const torch::jit::SourceRange& loc) override {
    return torch::jit::nativeResolver()->resolveType(name, loc);
  }
};

}  // namespace

absl::StatusOr<torch::jit::Module> ModuleFromSource(absl::string_view source,
                                                    const std::vector<NamedTensor>& attributes) {
  try {
    torch::jit::Module module("__torch__.StaticRuntimeSourceModule");
    for (const auto& [name, tensor] : attributes) {
      module.register_buffer(name, tensor);
    }
    module.define(std::string(source), std::make_shared<SourceResolver>());
    return module;
  } catch (const std::exception& e) {
    return StatusFromException(
        e, "cannot compile TorchScript source: ", absl::StatusCode::kInvalidArgument);
  }
}

}  // namespace static_runtime
