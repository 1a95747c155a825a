#include "server/model_signature.h"

#include <optional>
#include <utility>

#include "ATen/core/Dict.h"
#include "ATen/core/List.h"
#include "ATen/core/jit_type.h"
#include "ATen/ops/scalar_tensor.h"
#include "absl/container/btree_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "errors/status_macros.h"
#include "server/tensor_codec.h"

namespace static_runtime {
namespace server {
namespace {

using InputMap = absl::btree_map<std::string, at::Tensor>;

bool Carriable(const c10::TypePtr& type) {
  switch (type->kind()) {
    case c10::TypeKind::TensorType:
    case c10::TypeKind::IntType:
    case c10::TypeKind::FloatType:
    case c10::TypeKind::BoolType:
      return true;
    case c10::TypeKind::OptionalType:
    case c10::TypeKind::ListType:
      return Carriable(type->containedType(0));
    case c10::TypeKind::TupleType:
      for (const c10::TypePtr& element : type->containedTypes()) {
        if (!Carriable(element)) return false;
      }
      return true;
    case c10::TypeKind::DictType: {
      const c10::TypeKind key = type->containedType(0)->kind();
      return (key == c10::TypeKind::StringType || key == c10::TypeKind::IntType) &&
             Carriable(type->containedType(1));
    }
    default:
      return false;
  }
}

// What a one-element input holds, as the argument's type wants it.
absl::StatusOr<c10::IValue> Scalar(const std::string& name, const at::Tensor& tensor,
                                   const c10::TypePtr& type) {
  const c10::TypeKind kind = type->kind();
  if (tensor.numel() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("input '", name, "': the model takes one ",
                                                   type->annotation_str(), ", but got ",
                                                   tensor.numel(), " elements"));
  }
  const bool integral = c10::isIntegralType(tensor.scalar_type(), /*includeBool=*/false);
  switch (kind) {
    case c10::TypeKind::IntType:
      if (!integral) break;
      return c10::IValue(tensor.item<int64_t>());
    case c10::TypeKind::FloatType:
      if (!integral && !c10::isFloatingType(tensor.scalar_type())) break;
      return c10::IValue(tensor.item<double>());
    case c10::TypeKind::BoolType:
      if (tensor.scalar_type() != c10::ScalarType::Bool) break;
      return c10::IValue(tensor.item<bool>());
    default:
      break;
  }
  return absl::InvalidArgumentError(absl::StrCat("input '", name, "': the model takes ",
                                                 type->annotation_str(), ", not ",
                                                 c10::toString(tensor.scalar_type())));
}

// The names of `inputs` that start with `prefix` + ".", by what follows
// (up to the next "." when `to_dot`).
std::vector<std::string> EntryKeys(const InputMap& inputs, const std::string& prefix, bool to_dot) {
  std::vector<std::string> keys;
  const std::string start = prefix + ".";
  for (auto it = inputs.lower_bound(start); it != inputs.end(); ++it) {
    absl::string_view rest = it->first;
    if (!absl::ConsumePrefix(&rest, start)) break;
    if (to_dot) rest = rest.substr(0, rest.find('.'));
    if (keys.empty() || keys.back() != rest) keys.emplace_back(rest);
  }
  return keys;
}

bool IsLeaf(const c10::TypePtr& type) {
  const c10::TypeKind kind = type->kind();
  return kind == c10::TypeKind::TensorType || kind == c10::TypeKind::IntType ||
         kind == c10::TypeKind::FloatType || kind == c10::TypeKind::BoolType ||
         (kind == c10::TypeKind::OptionalType && IsLeaf(type->containedType(0)));
}

// The value of type `type` named `name`, taken out of `inputs`; nullopt
// when no input makes it.
absl::StatusOr<std::optional<c10::IValue>> Take(const std::string& name, const c10::TypePtr& type,
                                                InputMap& inputs) {
  switch (type->kind()) {
    case c10::TypeKind::OptionalType:
      return Take(name, type->containedType(0), inputs);
    case c10::TypeKind::TensorType:
    case c10::TypeKind::IntType:
    case c10::TypeKind::FloatType:
    case c10::TypeKind::BoolType: {
      auto it = inputs.find(name);
      if (it == inputs.end()) return std::nullopt;
      at::Tensor tensor = std::move(it->second);
      inputs.erase(it);
      if (type->kind() == c10::TypeKind::TensorType) return c10::IValue(std::move(tensor));
      ASSIGN_OR_RETURN(c10::IValue scalar, Scalar(name, tensor, type));
      return scalar;
    }
    case c10::TypeKind::ListType: {
      const c10::TypePtr element = type->containedType(0);
      c10::impl::GenericList list(element);
      auto whole = inputs.find(name);
      const bool numbers =
          element->kind() == c10::TypeKind::IntType || element->kind() == c10::TypeKind::FloatType;
      if (numbers && whole != inputs.end()) {
        const at::Tensor tensor = std::move(whole->second);
        inputs.erase(whole);
        if (tensor.dim() != 1) {
          return absl::InvalidArgumentError(absl::StrCat(
              "input '", name, "': a list must be 1-D, got ", tensor.dim(), " dimensions"));
        }
        for (int64_t i = 0; i < tensor.size(0); ++i) {
          ASSIGN_OR_RETURN(c10::IValue item,
                           Scalar(absl::StrCat(name, "[", i, "]"), tensor[i], element));
          list.push_back(std::move(item));
        }
        return c10::IValue(std::move(list));
      }
      for (int64_t i = 0;; ++i) {
        ASSIGN_OR_RETURN(std::optional<c10::IValue> item,
                         Take(absl::StrCat(name, ".", i), element, inputs));
        if (!item) break;
        list.push_back(*std::move(item));
      }
      const std::vector<std::string> stray = EntryKeys(inputs, name, /*to_dot=*/true);
      if (!stray.empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "input '", name, ".", stray.front(), "': list elements are numbered ", name, ".0, ",
            name, ".1, ... without gaps (got ", list.size(), " before the gap)"));
      }
      if (list.empty()) return std::nullopt;
      return c10::IValue(std::move(list));
    }
    case c10::TypeKind::TupleType: {
      const std::vector<c10::TypePtr> types = type->containedTypes().vec();
      std::vector<c10::IValue> elements(types.size());
      bool any = false;
      for (size_t i = 0; i < types.size(); ++i) {
        ASSIGN_OR_RETURN(std::optional<c10::IValue> element,
                         Take(absl::StrCat(name, ".", i), types[i], inputs));
        if (!element) continue;
        any = true;
        elements[i] = *std::move(element);
      }
      if (!any) return std::nullopt;
      for (size_t i = 0; i < types.size(); ++i) {
        if (elements[i].isNone() && types[i]->kind() != c10::TypeKind::OptionalType) {
          return absl::InvalidArgumentError(absl::StrCat("missing input '", name, ".", i, "' (",
                                                         types[i]->annotation_str(), ")"));
        }
      }
      return c10::IValue(c10::ivalue::Tuple::create(std::move(elements)));
    }
    case c10::TypeKind::DictType: {
      const c10::TypePtr key_type = type->containedType(0);
      const c10::TypePtr value_type = type->containedType(1);
      c10::impl::GenericDict dict(key_type, value_type);
      for (const std::string& key : EntryKeys(inputs, name, !IsLeaf(value_type))) {
        const std::string entry = absl::StrCat(name, ".", key);
        ASSIGN_OR_RETURN(std::optional<c10::IValue> value, Take(entry, value_type, inputs));
        if (!value) {
          return absl::InvalidArgumentError(
              absl::StrCat("input '", entry, "...': not a ", value_type->annotation_str()));
        }
        if (key_type->kind() == c10::TypeKind::IntType) {
          int64_t number = 0;
          if (!absl::SimpleAtoi(key, &number)) {
            return absl::InvalidArgumentError(
                absl::StrCat("input '", entry, "': the dict's keys are ints, not '", key, "'"));
          }
          dict.insert(c10::IValue(number), *std::move(value));
        } else {
          dict.insert(c10::IValue(key), *std::move(value));
        }
      }
      if (dict.empty()) return std::nullopt;
      return c10::IValue(std::move(dict));
    }
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("input '", name, "': the protocol cannot carry a ", type->annotation_str()));
  }
}

absl::Status CheckDeclared(const DeclaredTensor& declared, const at::Tensor& tensor) {
  if (!declared.datatype.empty()) {
    ASSIGN_OR_RETURN(c10::ScalarType type, ScalarTypeOfInput(declared.name, declared.datatype));
    if (tensor.scalar_type() != type) {
      ASSIGN_OR_RETURN(std::string got, DatatypeOf(tensor.scalar_type()));
      return absl::InvalidArgumentError(absl::StrCat("input '", declared.name, "': datatype ", got,
                                                     ", but the model takes ", declared.datatype));
    }
  }
  if (declared.shape.empty()) return absl::OkStatus();
  bool matches = tensor.dim() == static_cast<int64_t>(declared.shape.size());
  for (size_t i = 0; matches && i < declared.shape.size(); ++i) {
    matches = declared.shape[i] == -1 || declared.shape[i] == tensor.size(i);
  }
  if (!matches) {
    return absl::InvalidArgumentError(
        absl::StrCat("input '", declared.name, "': shape [", absl::StrJoin(tensor.sizes(), ","),
                     "], but the model takes [", absl::StrJoin(declared.shape, ","), "]"));
  }
  return absl::OkStatus();
}

std::optional<TensorMetadata> LeafMetadata(const std::string& name, const c10::TypePtr& type) {
  switch (type->kind()) {
    case c10::TypeKind::OptionalType:
      return LeafMetadata(name, type->containedType(0));
    case c10::TypeKind::TensorType:
      return TensorMetadata{name, "FP32", {-1}};
    case c10::TypeKind::IntType:
      return TensorMetadata{name, "INT64", {1}};
    case c10::TypeKind::FloatType:
      return TensorMetadata{name, "FP64", {1}};
    case c10::TypeKind::BoolType:
      return TensorMetadata{name, "BOOL", {1}};
    case c10::TypeKind::ListType: {
      const c10::TypeKind element = type->containedType(0)->kind();
      if (element == c10::TypeKind::IntType) return TensorMetadata{name, "INT64", {-1}};
      if (element == c10::TypeKind::FloatType) return TensorMetadata{name, "FP64", {-1}};
      return std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

void OutputMetadata(const std::string& name, const c10::TypePtr& type,
                    std::vector<TensorMetadata>& outputs) {
  if (type->kind() == c10::TypeKind::TupleType) {
    const auto elements = type->containedTypes();
    for (size_t i = 0; i < elements.size(); ++i) {
      OutputMetadata(absl::StrCat(name, ".", i), elements[i], outputs);
    }
    return;
  }
  std::optional<TensorMetadata> leaf = LeafMetadata(name, type);
  if (leaf && type->kind() != c10::TypeKind::ListType) {
    if (type->kind() != c10::TypeKind::TensorType) leaf->shape.clear();
    outputs.push_back(*std::move(leaf));
  }
}

absl::Status Flatten(const c10::IValue& value, const std::string& name,
                     std::vector<NamedTensor>& outputs) {
  if (value.isTensor()) {
    outputs.push_back({name, value.toTensor()});
  } else if (value.isNone()) {
  } else if (value.isInt()) {
    outputs.push_back({name, at::scalar_tensor(value.toInt(), at::kLong)});
  } else if (value.isDouble()) {
    outputs.push_back({name, at::scalar_tensor(value.toDouble(), at::kDouble)});
  } else if (value.isBool()) {
    outputs.push_back({name, at::scalar_tensor(value.toBool(), at::kBool)});
  } else if (value.isTuple()) {
    const auto& elements = value.toTupleRef().elements();
    for (size_t i = 0; i < elements.size(); ++i) {
      RETURN_IF_ERROR(Flatten(elements[i], absl::StrCat(name, ".", i), outputs));
    }
  } else if (value.isList()) {
    const c10::List<c10::IValue> list = value.toList();
    for (size_t i = 0; i < list.size(); ++i) {
      RETURN_IF_ERROR(Flatten(list.get(i), absl::StrCat(name, ".", i), outputs));
    }
  } else if (value.isGenericDict()) {
    for (const auto& entry : value.toGenericDict()) {
      const c10::IValue& key = entry.key();
      if (!key.isString() && !key.isInt()) {
        return absl::InvalidArgumentError(absl::StrCat("output '", name, "': a dict keyed by ",
                                                       key.tagKind(), " has no protocol names"));
      }
      const std::string key_text = key.isString() ? key.toStringRef() : absl::StrCat(key.toInt());
      RETURN_IF_ERROR(Flatten(entry.value(), absl::StrCat(name, ".", key_text), outputs));
    }
  } else {
    return absl::InvalidArgumentError(absl::StrCat("output '", name, "' is a ", value.tagKind(),
                                                   ", which the protocol cannot carry"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ModelSignature> ModelSignature::Make(const c10::FunctionSchema& schema,
                                                    const std::vector<DeclaredTensor>& declared) {
  ModelSignature signature(schema, declared);
  for (const c10::Argument& argument : schema.arguments()) {
    if (!Carriable(argument.type())) {
      return absl::InvalidArgumentError(absl::StrCat("argument '", argument.name(), "' of type ",
                                                     argument.type()->annotation_str(),
                                                     " cannot be made of the protocol's tensors"));
    }
    std::optional<TensorMetadata> leaf = LeafMetadata(argument.name(), argument.type());
    if (leaf) signature.inputs_.push_back(*std::move(leaf));
  }
  for (const DeclaredTensor& tensor : declared) {
    auto listed =
        std::find_if(signature.inputs_.begin(), signature.inputs_.end(),
                     [&](const TensorMetadata& input) { return input.name == tensor.name; });
    if (listed == signature.inputs_.end()) {
      listed = signature.inputs_.insert(signature.inputs_.end(),
                                        TensorMetadata{tensor.name, "FP32", {-1}});
    }
    if (!tensor.datatype.empty()) listed->datatype = tensor.datatype;
    if (!tensor.shape.empty()) listed->shape = tensor.shape;
  }
  const auto& returns = schema.returns();
  for (size_t i = 0; i < returns.size(); ++i) {
    OutputMetadata(returns.size() == 1 ? "output" : absl::StrCat("output.", i), returns[i].type(),
                   signature.outputs_);
  }
  return signature;
}

absl::StatusOr<std::vector<c10::IValue>> ModelSignature::Arguments(
    std::vector<NamedTensor> inputs) const {
  InputMap by_name;
  for (NamedTensor& input : inputs) {
    if (!by_name.emplace(input.name, std::move(input.tensor)).second) {
      return absl::InvalidArgumentError(absl::StrCat("input '", input.name, "' is given twice"));
    }
  }
  for (const auto& [name, tensor] : by_name) {
    const std::string root = name.substr(0, name.find('.'));
    const bool known =
        std::any_of(schema_.arguments().begin(), schema_.arguments().end(),
                    [&root](const c10::Argument& argument) { return argument.name() == root; });
    if (!known) {
      std::vector<std::string> names;
      for (const c10::Argument& argument : schema_.arguments()) names.push_back(argument.name());
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown input '", name, "'; the model's arguments are: ", absl::StrJoin(names, ", ")));
    }
  }
  for (const DeclaredTensor& tensor : declared_) {
    auto it = by_name.find(tensor.name);
    if (it != by_name.end()) RETURN_IF_ERROR(CheckDeclared(tensor, it->second));
  }
  std::vector<c10::IValue> arguments;
  for (const c10::Argument& argument : schema_.arguments()) {
    ASSIGN_OR_RETURN(std::optional<c10::IValue> value,
                     Take(argument.name(), argument.type(), by_name));
    if (value) {
      arguments.push_back(*std::move(value));
    } else if (argument.default_value()) {
      arguments.push_back(*argument.default_value());
    } else if (argument.type()->kind() == c10::TypeKind::OptionalType) {
      arguments.emplace_back();
    } else if (argument.type()->kind() == c10::TypeKind::DictType) {
      // No entries: an empty dict (the protocol cannot say it otherwise).
      arguments.emplace_back(c10::impl::GenericDict(argument.type()->containedType(0),
                                                    argument.type()->containedType(1)));
    } else if (argument.type()->kind() == c10::TypeKind::ListType) {
      arguments.emplace_back(c10::impl::GenericList(argument.type()->containedType(0)));
    } else {
      return absl::InvalidArgumentError(absl::StrCat("missing input '", argument.name(), "' (",
                                                     argument.type()->annotation_str(), ")"));
    }
  }
  if (!by_name.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("input '", by_name.begin()->first, "' is not part of any argument"));
  }
  return arguments;
}

absl::StatusOr<std::vector<NamedTensor>> ModelSignature::Outputs(const c10::IValue& result) {
  std::vector<NamedTensor> outputs;
  RETURN_IF_ERROR(Flatten(result, "output", outputs));
  return outputs;
}

absl::StatusOr<std::vector<NamedTensor>> ModelSignature::Inputs(
    const c10::FunctionSchema& schema, const std::vector<c10::IValue>& arguments) {
  if (arguments.size() > schema.arguments().size()) {
    return absl::InvalidArgumentError(absl::StrCat(arguments.size(), " arguments for ",
                                                   schema.arguments().size(), " parameters"));
  }
  std::vector<NamedTensor> inputs;
  for (size_t i = 0; i < arguments.size(); ++i) {
    RETURN_IF_ERROR(Flatten(arguments[i], schema.arguments()[i].name(), inputs));
  }
  return inputs;
}

}  // namespace server
}  // namespace static_runtime
