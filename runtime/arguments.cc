#include "runtime/arguments.h"

#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "errors/status_macros.h"

namespace static_runtime {
namespace {

std::string Describe(const c10::IValue& value) {
  if (value.isTensor()) {
    const at::Tensor& tensor = value.toTensor();
    if (!tensor.defined()) return "undefined Tensor";
    return absl::StrCat("Tensor of dtype ", c10::toString(tensor.scalar_type()));
  }
  return value.type()->annotation_str();
}

// Whether a container's static element type is `expected` (the same type
// object, or the same type without parameters): what Conform's subtype test
// would find for an invariant element type, without copying a type pointer.
bool SameElementType(const c10::TypePtr& actual, const c10::Type& expected) {
  if (actual.get() == &expected) return true;
  switch (expected.kind()) {
    case c10::TypeKind::IntType:
    case c10::TypeKind::FloatType:
    case c10::TypeKind::BoolType:
    case c10::TypeKind::StringType:
    case c10::TypeKind::NumberType:
      return actual->kind() == expected.kind();
    default:
      return false;
  }
}

// Whether `value` is already of type `expected` as it is, checked without
// making or copying a type (IValue::type() allocates one for a tensor or a
// container, and every copy of a shared type pointer is an atomic add on a
// count the callers' cores share). False only means "not shown here":
// Conform then decides.
bool ConformsAsIs(const c10::IValue& value, const c10::Type& expected) {
  // The unrefined Tensor type (what a schema says for `Tensor`), found once.
  static const c10::Type* const kAnyTensor = c10::TensorType::get().get();
  switch (expected.kind()) {
    case c10::TypeKind::AnyType:
      return true;
    case c10::TypeKind::TensorType:
      return &expected == kAnyTensor && value.isTensor();
    case c10::TypeKind::IntType:
      return value.isInt();
    case c10::TypeKind::FloatType:
      return value.isDouble();
    case c10::TypeKind::BoolType:
      return value.isBool();
    case c10::TypeKind::StringType:
      return value.isString();
    case c10::TypeKind::NoneType:
      return value.isNone();
    case c10::TypeKind::NumberType:
      return value.isInt() || value.isDouble();
    case c10::TypeKind::OptionalType:
      return value.isNone() ||
             ConformsAsIs(value, *expected.castRaw<c10::OptionalType>()->getElementType());
    case c10::TypeKind::ListType:
      return value.isList() &&
             SameElementType(
                 static_cast<const c10::detail::ListImpl*>(value.internalToPointer())->elementType,
                 *expected.castRaw<c10::ListType>()->getElementType());
    case c10::TypeKind::DictType: {
      if (!value.isGenericDict()) return false;
      const auto& types =
          static_cast<const c10::detail::DictImpl*>(value.internalToPointer())->elementTypes;
      const auto* dict_type = expected.castRaw<c10::DictType>();
      return SameElementType(types.keyType, *dict_type->getKeyType()) &&
             SameElementType(types.valueType, *dict_type->getValueType());
    }
    case c10::TypeKind::TupleType: {
      const auto* tuple_type = expected.castRaw<c10::TupleType>();
      if (!value.isTuple() || tuple_type->name()) return false;
      const auto& elements = value.toTupleRef().elements();
      if (elements.size() != tuple_type->elements().size()) return false;
      for (size_t i = 0; i < elements.size(); ++i) {
        if (!ConformsAsIs(elements[i], *tuple_type->elements()[i])) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

// `value` with its containers retyped to `expected` when their static element
// types are looser (a Dict[Any, Any] read from a torch.save file) but every
// element conforms; nullopt when it does not conform.
c10::optional<c10::IValue> Conform(const c10::IValue& value, const c10::TypePtr& expected) {
  if (value.type()->isSubtypeOf(*expected)) return value;
  if (const auto optional = expected->cast<c10::OptionalType>()) {
    return Conform(value, optional->getElementType());
  }
  if (const auto list_type = expected->cast<c10::ListType>()) {
    if (!value.isList()) return c10::nullopt;
    c10::impl::GenericList list(list_type->getElementType());
    for (const c10::IValue& element : value.toListRef()) {
      c10::optional<c10::IValue> conformed = Conform(element, list_type->getElementType());
      if (!conformed) return c10::nullopt;
      list.push_back(*std::move(conformed));
    }
    return c10::IValue(std::move(list));
  }
  if (const auto dict_type = expected->cast<c10::DictType>()) {
    if (!value.isGenericDict()) return c10::nullopt;
    c10::impl::GenericDict dict(dict_type->getKeyType(), dict_type->getValueType());
    for (const auto& entry : value.toGenericDict()) {
      c10::optional<c10::IValue> key = Conform(entry.key(), dict_type->getKeyType());
      c10::optional<c10::IValue> item = Conform(entry.value(), dict_type->getValueType());
      if (!key || !item) return c10::nullopt;
      dict.insert(*std::move(key), *std::move(item));
    }
    return c10::IValue(std::move(dict));
  }
  if (const auto tuple_type = expected->cast<c10::TupleType>()) {
    if (!value.isTuple()) return c10::nullopt;
    const auto& elements = value.toTupleRef().elements();
    if (elements.size() != tuple_type->elements().size()) return c10::nullopt;
    std::vector<c10::IValue> conformed;
    for (size_t i = 0; i < elements.size(); ++i) {
      c10::optional<c10::IValue> element = Conform(elements[i], tuple_type->elements()[i]);
      if (!element) return c10::nullopt;
      conformed.push_back(*std::move(element));
    }
    return c10::IValue(c10::ivalue::Tuple::create(std::move(conformed)));
  }
  return c10::nullopt;
}

absl::Status CheckType(const c10::FunctionSchema& schema, size_t index,
                       const c10::Argument& argument, c10::IValue& value) {
  const c10::TypePtr& expected = argument.type();
  auto mismatch = [&](const std::string& expected_text) {
    // prim::Uninitialized's value (a variable only a raising branch leaves
    // unset, which freezing can hand to a forked call) passes, as the
    // interpreter passes it.
    if (value.tagKind() == "Uninitialized") return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(schema.name(), "() argument ", index, " ('",
                                                   argument.name(), "'): expected ", expected_text,
                                                   ", got ", Describe(value)));
  };
  if (const c10::TensorType* tensor_type = expected->castRaw<c10::TensorType>()) {
    // Shapes in a declared tensor type are an example, not a contract; the
    // dtype is checked.
    if (!value.isTensor() || !value.toTensor().defined()) return mismatch("Tensor");
    const auto dtype = tensor_type->scalarType();
    if (dtype && *dtype != value.toTensor().scalar_type()) {
      return mismatch(absl::StrCat("Tensor of dtype ", c10::toString(*dtype)));
    }
    return absl::OkStatus();
  }
  if (ConformsAsIs(value, *expected)) return absl::OkStatus();
  c10::optional<c10::IValue> conformed = Conform(value, expected);
  if (!conformed) return mismatch(expected->annotation_str());
  value = *std::move(conformed);
  return absl::OkStatus();
}

}  // namespace

std::string DescribeTensor(const at::Tensor& tensor) {
  if (!tensor.defined()) return "undefined Tensor";
  return absl::StrCat(c10::toString(tensor.scalar_type()), "[", absl::StrJoin(tensor.sizes(), ", "),
                      "]");
}

std::string DescribeValue(const c10::IValue& value) {
  if (value.isTensor()) return DescribeTensor(value.toTensor());
  const auto describe = [](std::string* out, const c10::IValue& element) {
    out->append(DescribeValue(element));
  };
  if (value.isList())
    return absl::StrCat("[", absl::StrJoin(value.toListRef(), ", ", describe), "]");
  if (value.isTuple()) {
    return absl::StrCat("(", absl::StrJoin(value.toTupleRef().elements(), ", ", describe), ")");
  }
  if (value.isGenericDict()) {
    std::vector<std::string> entries;
    for (const auto& entry : value.toGenericDict()) {
      entries.push_back(
          absl::StrCat(DescribeValue(entry.key()), ": ", DescribeValue(entry.value())));
    }
    return absl::StrCat("{", absl::StrJoin(entries, ", "), "}");
  }
  if (value.isNone()) return "None";
  if (value.isInt() || value.isDouble() || value.isBool() || value.isString()) {
    std::ostringstream text;
    text << value;
    return absl::StrCat(value.type()->annotation_str(), "=", text.str());
  }
  return value.type()->annotation_str();
}

absl::Status BindArgumentsInto(const c10::FunctionSchema& schema,
                               absl::Span<const c10::IValue> args, const KwargMap& kwargs,
                               absl::Span<c10::IValue> slots) {
  const std::vector<c10::Argument>& arguments = schema.arguments();
  if (args.size() > arguments.size()) {
    return absl::InvalidArgumentError(absl::StrCat(schema.name(), "() takes ", arguments.size(),
                                                   " arguments but ", args.size(),
                                                   " positional arguments were given"));
  }
  for (const auto& [name, value] : kwargs) {
    size_t index = 0;
    while (index < arguments.size() && arguments[index].name() != name) ++index;
    if (index == arguments.size()) {
      std::vector<std::string> names;
      for (const auto& argument : arguments) names.push_back(argument.name());
      return absl::InvalidArgumentError(
          absl::StrCat(schema.name(), "() got an unexpected keyword argument '", name,
                       "' (arguments: ", absl::StrJoin(names, ", "), ")"));
    }
    if (index < args.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          schema.name(), "() got multiple values for argument ", index, " ('", name, "')"));
    }
  }
  for (size_t i = 0; i < arguments.size(); ++i) {
    const c10::Argument& argument = arguments[i];
    if (i < args.size()) {
      slots[i] = args[i];
      continue;
    }
    auto kwarg = kwargs.empty() ? kwargs.end() : kwargs.find(argument.name());
    if (kwarg != kwargs.end()) {
      slots[i] = kwarg->second;
    } else if (argument.default_value()) {
      slots[i] = *argument.default_value();
    } else {
      return absl::InvalidArgumentError(absl::StrCat(schema.name(), "() missing argument ", i,
                                                     " ('", argument.name(), "') of type ",
                                                     argument.type()->annotation_str()));
    }
  }
  for (size_t i = 0; i < arguments.size(); ++i) {
    RETURN_IF_ERROR(CheckType(schema, i, arguments[i], slots[i]));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<c10::IValue>> BindArguments(const c10::FunctionSchema& schema,
                                                       absl::Span<const c10::IValue> args,
                                                       const KwargMap& kwargs) {
  std::vector<c10::IValue> bound(schema.arguments().size());
  RETURN_IF_ERROR(BindArgumentsInto(schema, args, kwargs, absl::MakeSpan(bound)));
  return bound;
}

}  // namespace static_runtime
