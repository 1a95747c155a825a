#include "verify/reference.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "ATen/ATen.h"
#include "ATen/NestedTensorImpl.h"
#include "ATen/core/class_type.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "errors/status_macros.h"
#include "torch/csrc/jit/runtime/interpreter.h"

namespace static_runtime {
namespace reference {
namespace {

std::string Shape(const at::Tensor& t) { return c10::str(t.sizes()); }

absl::Status Difference(const std::string& path, const std::string& what) {
  return absl::FailedPreconditionError(absl::StrCat(path, ": ", what));
}

// OK when both tensors are undefined or have the same dtype and shape.
absl::Status SameKindOfTensor(const std::string& path, const at::Tensor& expected,
                              const at::Tensor& actual) {
  if (expected.defined() != actual.defined()) {
    return Difference(path, "one tensor is undefined");
  }
  if (!expected.defined()) return absl::OkStatus();
  if (expected.scalar_type() != actual.scalar_type()) {
    return Difference(path, absl::StrCat("dtype ", c10::toString(expected.scalar_type()), " vs ",
                                         c10::toString(actual.scalar_type())));
  }
  if (!expected.sizes().equals(actual.sizes())) {
    return Difference(path, absl::StrCat("shape ", Shape(expected), " vs ", Shape(actual)));
  }
  return absl::OkStatus();
}

absl::Status CompareTensors(const std::string& path, const at::Tensor& expected,
                            const at::Tensor& actual, Tolerance tolerance) {
  if (expected.defined() && actual.defined() && (expected.is_nested() || actual.is_nested())) {
    if (expected.is_nested() != actual.is_nested()) return Difference(path, "one tensor is nested");
    const at::Tensor& expected_sizes = at::native::get_nested_size_tensor(expected);
    const at::Tensor& actual_sizes = at::native::get_nested_size_tensor(actual);
    if (!expected_sizes.sizes().equals(actual_sizes.sizes()) ||
        !at::equal(expected_sizes, actual_sizes)) {
      return Difference(path, absl::StrCat("nested sizes ", c10::str(expected_sizes), " vs ",
                                           c10::str(actual_sizes)));
    }
    return CompareTensors(path, PaddedIfNested(expected), PaddedIfNested(actual), tolerance);
  }
  absl::Status same = SameKindOfTensor(path, expected, actual);
  if (!same.ok() || !expected.defined() || expected.numel() == 0) return same;
  at::Tensor e = expected.contiguous().flatten();
  at::Tensor a = actual.contiguous().flatten();
  at::Tensor mismatch;
  if (at::isFloatingType(e.scalar_type()) && tolerance == Tolerance::kBitwise) {
    mismatch =
        at::logical_and(at::ne(e, a), at::logical_not(at::logical_and(at::isnan(e), at::isnan(a))));
  } else if (at::isFloatingType(e.scalar_type())) {
    const double rtol = e.scalar_type() == at::kDouble ? 1e-7 : 1e-4;
    double atol = e.scalar_type() == at::kDouble ? 1e-9 : 1e-5;
    if (tolerance == Tolerance::kWholeModel) {
      const at::Tensor finite = e.masked_select(at::isfinite(e));
      if (finite.numel() > 0) atol += 1e-3 * finite.abs().max().item<double>();
    }
    mismatch = at::logical_not(at::isclose(e, a, rtol, atol, /*equal_nan=*/true));
  } else {
    mismatch = at::ne(e, a);
  }
  if (!mismatch.any().item<bool>()) return absl::OkStatus();
  const int64_t index = mismatch.nonzero()[0][0].item<int64_t>();
  return Difference(path,
                    absl::StrCat("value at flat index ", index, " of shape ", Shape(expected), ": ",
                                 c10::str(e[index].item()), " vs ", c10::str(a[index].item())));
}

// Walks `expected` and `actual` together: tuples, lists and dicts element by
// element (their kinds, lengths and keys must agree), calling `leaf` on every
// other pair of values with its path ("output[1]['key'][0]").
constexpr int kMaxObjectDepth = 16;

using LeafVisitor = std::function<absl::Status(const std::string& path, const c10::IValue& expected,
                                               const c10::IValue& actual)>;

absl::Status WalkPairs(const std::string& path, const c10::IValue& expected,
                       const c10::IValue& actual, const LeafVisitor& leaf, int depth = 0) {
  if (expected.tagKind() != actual.tagKind()) {
    return Difference(path, absl::StrCat("kind ", expected.tagKind(), " vs ", actual.tagKind()));
  }
  if (expected.isTuple() || expected.isList()) {
    const std::vector<c10::IValue> e =
        expected.isTuple() ? expected.toTupleRef().elements().vec() : expected.toListRef().vec();
    const std::vector<c10::IValue> a =
        actual.isTuple() ? actual.toTupleRef().elements().vec() : actual.toListRef().vec();
    if (e.size() != a.size()) {
      return Difference(path, absl::StrCat("length ", e.size(), " vs ", a.size()));
    }
    for (size_t i = 0; i < e.size(); ++i) {
      RETURN_IF_ERROR(WalkPairs(absl::StrCat(path, "[", i, "]"), e[i], a[i], leaf, depth + 1));
    }
    return absl::OkStatus();
  }
  if (expected.isGenericDict()) {
    const c10::impl::GenericDict e = expected.toGenericDict();
    const c10::impl::GenericDict a = actual.toGenericDict();
    if (e.size() != a.size()) {
      return Difference(path, absl::StrCat("dict size ", e.size(), " vs ", a.size()));
    }
    for (const auto& entry : e) {
      auto found = a.find(entry.key());
      const std::string key_path = absl::StrCat(path, "[", c10::str(entry.key()), "]");
      if (found == a.end()) return Difference(key_path, "key missing");
      RETURN_IF_ERROR(WalkPairs(key_path, entry.value(), found->value(), leaf, depth + 1));
    }
    return absl::OkStatus();
  }
  // TorchScript objects (each run creates its own): of one class, with
  // equal attributes (down to a depth that stops an object that refers to
  // itself).
  if (expected.isObject()) {
    const c10::ivalue::Object& e = expected.toObjectRef();
    const c10::ivalue::Object& a = actual.toObjectRef();
    if (e.type()->name() != a.type()->name() || e.slots().size() != a.slots().size()) {
      return Difference(
          path, absl::StrCat("object ", e.type()->repr_str(), " vs ", a.type()->repr_str()));
    }
    if (&e == &a || depth >= kMaxObjectDepth) return absl::OkStatus();
    for (size_t i = 0; i < e.slots().size(); ++i) {
      RETURN_IF_ERROR(WalkPairs(absl::StrCat(path, ".", e.type()->getAttributeName(i)),
                                e.getSlot(i), a.getSlot(i), leaf, depth + 1));
    }
    return absl::OkStatus();
  }
  return leaf(path, expected, actual);
}

absl::Status CompareLeaves(const std::string& path, const c10::IValue& expected,
                           const c10::IValue& actual, Tolerance tolerance) {
  if (expected.isTensor()) {
    return CompareTensors(path, expected.toTensor(), actual.toTensor(), tolerance);
  }
  // prim::Uninitialized's placeholder (a value an If branch never sets):
  // equal to itself, which IValue's == does not say.
  if (expected.tagKind() == "Uninitialized") return absl::OkStatus();
  if (expected.isDouble()) {
    const double e = expected.toDouble(), a = actual.toDouble();
    const double allowed = tolerance == Tolerance::kBitwise ? 0 : 1e-6 * std::max(1.0, std::abs(e));
    if (std::abs(e - a) <= allowed || (std::isnan(e) && std::isnan(a))) return absl::OkStatus();
    return Difference(path, absl::StrCat(e, " vs ", a));
  }
  if (expected != actual) {
    return Difference(path, absl::StrCat(c10::str(expected), " vs ", c10::str(actual)));
  }
  return absl::OkStatus();
}

// The largest difference between two tensors of one dtype and shape: equal
// elements (NaN and NaN, an infinity and itself) differ by 0; a NaN against a
// number, or infinities apart, by infinity.
double MaxAbsTensorDifference(const at::Tensor& expected, const at::Tensor& actual) {
  if (!expected.defined() || expected.numel() == 0) return 0;
  const at::Tensor e = expected.to(at::kDouble);
  const at::Tensor a = actual.to(at::kDouble);
  const at::Tensor equal = e.eq(a).logical_or(e.isnan().logical_and(a.isnan()));
  return at::where(equal, at::zeros_like(e), (e - a).abs())
      .nan_to_num(std::numeric_limits<double>::infinity())
      .max()
      .item<double>();
}

}  // namespace

c10::IValue RunInterpreter(const std::shared_ptr<torch::jit::Graph>& graph,
                           std::vector<c10::IValue> inputs) {
  torch::jit::Code code(graph, "reference");
  torch::jit::InterpreterState state(code);
  torch::jit::Stack stack = std::move(inputs);
  state.run(stack);
  if (stack.size() == 1) return stack.front();
  return c10::ivalue::Tuple::create(std::move(stack));
}

absl::Status Compare(const c10::IValue& expected, const c10::IValue& actual, Tolerance tolerance) {
  return WalkPairs(
      "output", expected, actual,
      [tolerance](const std::string& path, const c10::IValue& e, const c10::IValue& a) {
        return CompareLeaves(path, e, a, tolerance);
      });
}

absl::StatusOr<double> MaxAbsDifference(const c10::IValue& expected, const c10::IValue& actual) {
  double max_difference = 0;
  absl::Status status = WalkPairs(
      "output", expected, actual,
      [&max_difference](const std::string& path, const c10::IValue& e, const c10::IValue& a) {
        double difference = 0;
        if (e.isTensor()) {
          RETURN_IF_ERROR(SameKindOfTensor(path, e.toTensor(), a.toTensor()));
          difference = MaxAbsTensorDifference(e.toTensor(), a.toTensor());
        } else if (e.isDouble() || e.isInt()) {
          difference = std::abs(e.toScalar().toDouble() - a.toScalar().toDouble());
        }
        max_difference = std::max(max_difference, difference);
        return absl::OkStatus();
      });
  RETURN_IF_ERROR(status);
  return max_difference;
}

namespace {

// What the deep copy so far made of each object (a tensor's TensorImpl, a
// container), so that an object met twice is copied once.
using CopyMemo = absl::flat_hash_map<const void*, c10::IValue>;

c10::IValue CopyOnce(const c10::IValue& value, CopyMemo& memo);

c10::IValue CopyTensor(const at::Tensor& t) {
  if (t.is_nested()) return t.clone();
  // A view that is not dense (a slice, a step, an expanded tensor) keeps
  // its layout: its whole storage is copied (clone() would make it
  // contiguous, and ATen's loops, so some results' bits, follow layout).
  if (t.layout() == at::kStrided && t.has_storage() && !t.requires_grad() &&
      !t.is_non_overlapping_and_dense()) {
    const int64_t elements = static_cast<int64_t>(t.storage().nbytes() / t.itemsize());
    const at::Tensor whole = at::empty({0}, t.options()).set_(t.storage(), 0, {elements}, {1});
    return whole.clone().as_strided(t.sizes(), t.strides(), t.storage_offset());
  }
  // Preserve explicitly: a quantized tensor's clone() is contiguous by default
  // (a channels-last convolution's result would come back NCHW).
  return t.clone(at::MemoryFormat::Preserve);
}

c10::IValue CopyUnmemoized(const c10::IValue& value, CopyMemo& memo) {
  if (value.isTensor()) {
    const at::Tensor& t = value.toTensor();
    return t.defined() ? CopyTensor(t) : value;
  }
  if (value.isTuple()) {
    std::vector<c10::IValue> elements;
    for (const auto& e : value.toTupleRef().elements()) elements.push_back(CopyOnce(e, memo));
    return c10::ivalue::Tuple::create(std::move(elements));
  }
  if (value.isList()) {
    c10::impl::GenericList list(value.toList().elementType());
    for (const auto& e : value.toListRef()) list.push_back(CopyOnce(e, memo));
    return list;
  }
  if (value.isGenericDict()) {
    const c10::impl::GenericDict dict = value.toGenericDict();
    c10::impl::GenericDict copy(dict.keyType(), dict.valueType());
    for (const auto& entry : dict) copy.insert(entry.key(), CopyOnce(entry.value(), memo));
    return copy;
  }
  return value;
}

c10::IValue CopyOnce(const c10::IValue& value, CopyMemo& memo) {
  const void* object = nullptr;
  if (value.isTensor()) {
    object = value.toTensor().unsafeGetTensorImpl();
  } else if (value.isTuple() || value.isList() || value.isGenericDict()) {
    object = value.internalToPointer();
  }
  if (object == nullptr) return CopyUnmemoized(value, memo);
  if (const auto found = memo.find(object); found != memo.end()) return found->second;
  c10::IValue copy = CopyUnmemoized(value, memo);
  memo.emplace(object, copy);
  return copy;
}

}  // namespace

c10::IValue DeepCopy(const c10::IValue& value) {
  CopyMemo memo;
  return CopyOnce(value, memo);
}

std::vector<c10::IValue> DeepCopy(const std::vector<c10::IValue>& values) {
  CopyMemo memo;
  std::vector<c10::IValue> copies;
  for (const c10::IValue& value : values) copies.push_back(CopyOnce(value, memo));
  return copies;
}

std::string Shapes(const c10::IValue& value) {
  if (value.isTensor()) return c10::str(value.toTensor().sizes());
  std::vector<std::string> parts;
  if (value.isTuple()) {
    for (const c10::IValue& element : value.toTupleRef().elements())
      parts.push_back(Shapes(element));
  } else if (value.isList()) {
    for (const c10::IValue& element : value.toListRef()) parts.push_back(Shapes(element));
  } else if (value.isGenericDict()) {
    for (const auto& entry : value.toGenericDict()) {
      parts.push_back(absl::StrCat(c10::str(entry.key()), ": ", Shapes(entry.value())));
    }
  } else {
    return c10::str(value);
  }
  return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
}

bool ExactlyEqual(const c10::IValue& a, const c10::IValue& b) {
  if (a.isTensor() && b.isTensor()) {
    const at::Tensor& x = a.toTensor();
    const at::Tensor& y = b.toTensor();
    if (x.defined() != y.defined()) return false;
    if (x.defined() && (x.is_nested() || y.is_nested())) {
      return x.is_nested() && y.is_nested() &&
             ExactlyEqual(at::native::get_nested_size_tensor(x),
                          at::native::get_nested_size_tensor(y)) &&
             ExactlyEqual(PaddedIfNested(x), PaddedIfNested(y));
    }
    return !x.defined() ||
           (x.scalar_type() == y.scalar_type() && x.sizes().equals(y.sizes()) && at::equal(x, y));
  }
  if (a.tagKind() != b.tagKind()) return false;
  if (a.isTuple() || a.isList()) {
    const auto x = a.isTuple() ? a.toTupleRef().elements().vec() : a.toListRef().vec();
    const auto y = b.isTuple() ? b.toTupleRef().elements().vec() : b.toListRef().vec();
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!ExactlyEqual(x[i], y[i])) return false;
    }
    return true;
  }
  if (a.isGenericDict()) {
    const auto x = a.toGenericDict();
    const auto y = b.toGenericDict();
    if (x.size() != y.size()) return false;
    for (const auto& entry : x) {
      auto found = y.find(entry.key());
      if (found == y.end() || !ExactlyEqual(entry.value(), found->value())) return false;
    }
    return true;
  }
  return a == b;
}

at::Tensor PaddedIfNested(const at::Tensor& t) {
  return t.defined() && t.is_nested() ? t.to_padded_tensor(0) : t;
}

at::Tensor ToDouble(const at::Tensor& t) {
  if (!t.is_nested()) return t.to(at::kDouble);
  const at::native::NestedTensorImpl* nested = at::native::get_nested_tensor_impl(t);
  return at::detail::make_tensor<at::native::NestedTensorImpl>(
      t.contiguous().values().to(at::kDouble), nested->get_nested_size_tensor().clone());
}

}  // namespace reference
}  // namespace static_runtime
