// Native kernels for lists, tuples and dicts: construction (lists and dicts
// refilled from run to run: ops/prim/recycled_containers.h), unpacking, indexing,
// len, append, item assignment, and a dict's keys, values and items. Each
// reads and writes the value slots directly.
#include <algorithm>
#include <stdexcept>

#include "ATen/core/ivalue.h"
#include "absl/strings/str_cat.h"
#include "ops/core/registry.h"
#include "ops/prim/recycled_containers.h"
#include "torch/csrc/jit/runtime/slice_indices_adjust.h"

namespace static_runtime {
namespace {

using torch::jit::Node;

KernelOffer ListConstruct(const Node* node) {
  c10::TypePtr element_type = node->output()->type()->expectRef<c10::ListType>().getElementType();
  return [element_type](NodeIO& io) {
    c10::impl::GenericList list = ReusedList(io.Output(0), element_type);
    list.reserve(io.num_inputs());
    for (size_t i = 0; i < io.num_inputs(); ++i) list.push_back(io.Input(i));
    io.Output(0) = std::move(list);
  };
}

KernelOffer TupleConstruct(const Node* node) {
  auto tuple_type = node->output()->type()->cast<c10::TupleType>();
  const bool named = tuple_type != nullptr && tuple_type->schema() != nullptr;
  return [named, tuple_type](NodeIO& io) {
    std::vector<c10::IValue> elements;
    elements.reserve(io.num_inputs());
    for (size_t i = 0; i < io.num_inputs(); ++i) elements.push_back(io.Input(i));
    io.Output(0) = named ? c10::ivalue::Tuple::createNamed(std::move(elements), tuple_type)
                         : c10::ivalue::Tuple::create(std::move(elements));
  };
}

KernelOffer DictConstruct(const Node* node) {
  const auto& dict_type = node->output()->type()->expectRef<c10::DictType>();
  c10::TypePtr key_type = dict_type.getKeyType();
  c10::TypePtr value_type = dict_type.getValueType();
  return [key_type, value_type](NodeIO& io) {
    c10::impl::GenericDict dict = ReusedDict(io.Output(0), key_type, value_type);
    dict.reserve(io.num_inputs() / 2);
    for (size_t i = 0; i + 1 < io.num_inputs(); i += 2) {
      dict.insert_or_assign(io.Input(i), io.Input(i + 1));
    }
    io.Output(0) = std::move(dict);
  };
}

void CheckUnpackCount(size_t actual, size_t expected, const char* what) {
  TORCH_CHECK(actual == expected, "cannot unpack a ", what, " of ", actual, " elements into ",
              expected, " values");
}

void ListUnpack(NodeIO& io) {
  const c10::IValue& input = io.Input(0);
  if (input.isTensorList()) {
    // A list of tensors keeps them unboxed.
    c10::List<at::Tensor> list = input.toTensorList();
    CheckUnpackCount(list.size(), io.num_outputs(), "list");
    for (size_t i = 0; i < io.num_outputs(); ++i) io.Output(i) = list.get(i);
    return;
  }
  c10::ArrayRef<c10::IValue> elements = input.toListRef();
  CheckUnpackCount(elements.size(), io.num_outputs(), "list");
  for (size_t i = 0; i < io.num_outputs(); ++i) io.Output(i) = elements[i];
}

void TupleUnpack(NodeIO& io) {
  const auto& elements = io.Input(0).toTupleRef().elements();
  CheckUnpackCount(elements.size(), io.num_outputs(), "tuple");
  for (size_t i = 0; i < io.num_outputs(); ++i) io.Output(i) = elements[i];
}

// A Python index into `size` elements; out of range, std::out_of_range with
// the JIT's own message (the same exception type and text as the JIT).
int64_t NormalizeIndex(int64_t index, size_t size, const char* out_of_range) {
  const int64_t n = static_cast<int64_t>(size);
  const int64_t normalized = index < 0 ? index + n : index;
  if (normalized < 0 || normalized >= n) throw std::out_of_range(out_of_range);
  return normalized;
}

void TupleIndex(NodeIO& io) {
  const auto& elements = io.Input(0).toTupleRef().elements();
  io.Output(0) = elements[NormalizeIndex(io.Input(1).toInt(), elements.size(),
                                         "Tuple list index out of range")];
}

void ListGetItem(NodeIO& io) {
  c10::ArrayRef<c10::IValue> elements = io.Input(0).toListRef();
  io.Output(0) =
      elements[NormalizeIndex(io.Input(1).toInt(), elements.size(), "list index out of range")];
}

void DictGetItem(NodeIO& io) {
  const c10::impl::GenericDict dict = io.Input(0).toGenericDict();
  auto found = dict.find(io.Input(1));
  TORCH_CHECK(found != dict.end(), "KeyError: ", io.Input(1));
  io.Output(0) = found->value();
}

void ListAppend(NodeIO& io) {
  c10::impl::GenericList list = io.Input(0).toList();
  list.push_back(io.Input(1));
  io.Output(0) = std::move(list);
}

// dict[key] = value (the dict is written in place).
void DictSetItem(NodeIO& io) {
  c10::impl::GenericDict dict = io.Input(0).toGenericDict();
  dict.insert_or_assign(io.Input(1), io.Input(2));
}

// list[index] = value; returns the list (written in place).
void ListSetItem(NodeIO& io) {
  c10::impl::GenericList list = io.Input(0).toList();
  list.set(NormalizeIndex(io.Input(1).toInt(), list.size(), "list index out of range"),
           io.Input(2));
  io.Output(0) = std::move(list);
}

// A list of one element per entry of a dict, in insertion order: its keys,
// values or (key, value) tuples. `type_of(dict)` is the elements' type,
// `element_of(entry)` an element.
template <typename TypeOf, typename ElementOf>
Kernel DictListKernel(TypeOf type_of, ElementOf element_of) {
  return [type_of, element_of](NodeIO& io) {
    const c10::impl::GenericDict dict = io.Input(0).toGenericDict();
    c10::impl::GenericList list(type_of(dict));
    list.reserve(dict.size());
    for (const auto& entry : dict) list.push_back(element_of(entry));
    io.Output(0) = std::move(list);
  };
}

void ListLen(NodeIO& io) { io.Output(0) = static_cast<int64_t>(io.Input(0).toListRef().size()); }

void DictLen(NodeIO& io) {
  io.Output(0) = static_cast<int64_t>(io.Input(0).toGenericDict().size());
}

// l[start:end:step] of a list, as the JIT's aten::slice.t: Python's
// clamping of the bounds, its error for a zero step.
void ListSlice(NodeIO& io) {
  const c10::impl::GenericList list = io.Input(0).toList();
  int64_t start = io.Input(1).isNone() ? INT64_MAX : io.Input(1).toInt();
  int64_t end = io.Input(2).isNone() ? INT64_MAX : io.Input(2).toInt();
  const int64_t step = io.Input(3).toInt();
  const int64_t count =
      torch::jit::slice_indices_adjust(static_cast<int64_t>(list.size()), &start, &end, step);
  c10::impl::GenericList sliced(list.elementType());
  sliced.reserve(count);
  for (int64_t i = 0, at = start; i < count; ++i, at += step) sliced.push_back(list.get(at));
  io.Output(0) = std::move(sliced);
}

// l * n and n * l: the list repeated n times. The JIT's operator fails on a
// negative count unless the list is empty; so does this one.
void ListRepeat(const c10::impl::GenericList& list, int64_t times, c10::IValue& output) {
  TORCH_CHECK(times >= 0 || list.empty(), "cannot repeat a list of ", list.size(),
              " elements a negative number of times (", times, ")");
  c10::impl::GenericList repeated(list.elementType());
  repeated.reserve(list.size() * static_cast<size_t>(std::max<int64_t>(times, 0)));
  for (int64_t i = 0; i < times; ++i) {
    for (const c10::IValue& element : list) repeated.push_back(element);
  }
  output = std::move(repeated);
}

// dict(): a new empty dict of the node's key and value types (its
// output's, else its schema's: Dict(str, Tensor)).
KernelOffer EmptyDict(const Node* node) {
  const c10::FunctionSchema* schema = node->maybeSchema();
  if (!node->inputs().empty() || schema == nullptr) return Decline();
  c10::DictTypePtr dict_type = node->output()->type()->cast<c10::DictType>();
  if (dict_type == nullptr) dict_type = schema->returns()[0].type()->cast<c10::DictType>();
  if (dict_type == nullptr) return Decline();
  return [key_type = dict_type->getKeyType(), value_type = dict_type->getValueType()](NodeIO& io) {
    io.Output(0) = c10::impl::GenericDict(key_type, value_type);
  };
}

}  // namespace

void RegisterNativeContainersKernels(KernelRegistry& registry) {
  registry.Add(Native("aten::slice", "t", ListSlice));
  registry.Add(Native("aten::mul", "left_t", [](NodeIO& io) {
    ListRepeat(io.Input(0).toList(), io.Input(1).toInt(), io.Output(0));
  }));
  registry.Add(Native("aten::mul", "right_", [](NodeIO& io) {
    ListRepeat(io.Input(1).toList(), io.Input(0).toInt(), io.Output(0));
  }));
  registry.Add(NativeNodeKind("aten::dict", EmptyDict));
  registry.Add(NativeNodeKind("prim::ListConstruct", ListConstruct));
  registry.Add(NativeNodeKind("prim::TupleConstruct", TupleConstruct));
  registry.Add(NativeNodeKind("prim::DictConstruct", DictConstruct));
  registry.Add(NativeNodeKind("prim::ListUnpack", ForAnyNode(ListUnpack)));
  registry.Add(NativeNodeKind("prim::TupleUnpack", ForAnyNode(TupleUnpack)));
  registry.Add(NativeNodeKind("prim::TupleIndex", ForAnyNode(TupleIndex)));
  registry.Add(Native("aten::__getitem__", "t", ListGetItem));
  for (const char* key : {"str", "int", "bool", "float", "Tensor"}) {
    registry.Add(Native("aten::__getitem__", absl::StrCat("Dict_", key), DictGetItem));
    registry.Add(Native("aten::len", absl::StrCat("Dict_", key), DictLen));
    registry.Add(Native("aten::_set_item", key, DictSetItem));
    registry.Add(Native("aten::__contains__", key, [](NodeIO& io) {
      io.Output(0) = io.Input(0).toGenericDict().contains(io.Input(1));
    }));
    registry.Add(Native("aten::keys", key,
                        DictListKernel([](const auto& dict) { return dict.keyType(); },
                                       [](const auto& entry) { return entry.key(); })));
    registry.Add(Native("aten::values", key,
                        DictListKernel([](const auto& dict) { return dict.valueType(); },
                                       [](const auto& entry) { return entry.value(); })));
    registry.Add(Native("aten::items", key,
                        DictListKernel(
                            [](const auto& dict) {
                              return c10::TupleType::create({dict.keyType(), dict.valueType()});
                            },
                            [](const auto& entry) {
                              return c10::IValue(
                                  c10::ivalue::Tuple::create(entry.key(), entry.value()));
                            })));
  }
  registry.Add(Native("aten::append", "t", ListAppend));
  registry.Add(Native("aten::_set_item", "t", ListSetItem));
  registry.Add(Native("aten::len", "t", ListLen));
  // A static type refinement (Optional[T] -> T): the value itself.
  registry.Add(Native("prim::unchecked_cast", "", [](NodeIO& io) { io.Output(0) = io.Input(0); }));
  registry.Add(Native("aten::len", "any", ListLen));
}

}  // namespace static_runtime
