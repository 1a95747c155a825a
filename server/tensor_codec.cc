#include "server/tensor_codec.h"

#include <cstring>
#include <limits>

#include "ATen/ops/empty.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "c10/util/BFloat16.h"
#include "c10/util/Half.h"

namespace static_runtime {
namespace server {
namespace {

struct DatatypeName {
  const char* name;
  c10::ScalarType type;
};

constexpr DatatypeName kDatatypes[] = {
    {"BOOL", c10::ScalarType::Bool},  {"UINT8", c10::ScalarType::Byte},
    {"INT8", c10::ScalarType::Char},  {"INT16", c10::ScalarType::Short},
    {"INT32", c10::ScalarType::Int},  {"INT64", c10::ScalarType::Long},
    {"FP16", c10::ScalarType::Half},  {"BF16", c10::ScalarType::BFloat16},
    {"FP32", c10::ScalarType::Float}, {"FP64", c10::ScalarType::Double},
};

std::string KnownDatatypes() {
  std::vector<std::string> names;
  for (const DatatypeName& datatype : kDatatypes) names.push_back(datatype.name);
  return absl::StrJoin(names, ", ");
}

}  // namespace

c10::ScalarType ScalarTypeOf(absl::string_view datatype, bool* known) {
  for (const DatatypeName& entry : kDatatypes) {
    if (datatype == entry.name) {
      *known = true;
      return entry.type;
    }
  }
  *known = false;
  return c10::ScalarType::Undefined;
}

absl::StatusOr<c10::ScalarType> ScalarTypeOfInput(absl::string_view input,
                                                  absl::string_view datatype) {
  bool known = false;
  const c10::ScalarType type = ScalarTypeOf(datatype, &known);
  if (!known) {
    return absl::InvalidArgumentError(absl::StrCat("input '", input, "': datatype '", datatype,
                                                   "' is not one of ", KnownDatatypes()));
  }
  return type;
}

absl::StatusOr<std::string> DatatypeOf(c10::ScalarType type) {
  for (const DatatypeName& entry : kDatatypes) {
    if (entry.type == type) return std::string(entry.name);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("tensors of dtype ", c10::toString(type), " have no protocol datatype"));
}

absl::StatusOr<int64_t> CheckedElementCount(absl::string_view input,
                                            absl::Span<const int64_t> shape, int64_t max_elements) {
  int64_t count = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    const int64_t size = shape[i];
    if (size < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("input '", input, "': dimension ", i, " has negative size ", size));
    }
    if (size != 0 && count > max_elements / size) {
      return absl::InvalidArgumentError(
          absl::StrCat("input '", input, "': shape [", absl::StrJoin(shape, ","),
                       "] has more than the server's limit of ", max_elements, " elements"));
    }
    count *= size;
  }
  if (count > max_elements) {
    return absl::InvalidArgumentError(absl::StrCat("input '", input, "': ", count,
                                                   " elements, more than the server's limit of ",
                                                   max_elements));
  }
  return count;
}

absl::StatusOr<at::Tensor> TensorFromRaw(absl::string_view input, c10::ScalarType type,
                                         absl::Span<const int64_t> shape, absl::string_view bytes,
                                         int64_t max_elements) {
  absl::StatusOr<int64_t> count = CheckedElementCount(input, shape, max_elements);
  if (!count.ok()) return count.status();
  const uint64_t expected = static_cast<uint64_t>(*count) * c10::elementSize(type);
  if (bytes.size() != expected) {
    return absl::InvalidArgumentError(
        absl::StrCat("input '", input, "': ", bytes.size(), " bytes of data, but shape [",
                     absl::StrJoin(shape, ","), "] of ", c10::toString(type), " needs ", expected));
  }
  at::Tensor tensor =
      at::empty(std::vector<int64_t>(shape.begin(), shape.end()), at::TensorOptions().dtype(type));
  if (!bytes.empty()) std::memcpy(tensor.data_ptr(), bytes.data(), bytes.size());
  if (type == c10::ScalarType::Bool) {
    // Only 0 and 1 are bools; anything else would be undefined behaviour.
    const auto* raw = reinterpret_cast<const uint8_t*>(bytes.data());
    for (size_t i = 0; i < bytes.size(); ++i) {
      if (raw[i] > 1) {
        return absl::InvalidArgumentError(absl::StrCat("input '", input, "': BOOL element ", i,
                                                       " is ", int{raw[i]}, ", not 0 or 1"));
      }
    }
  }
  return tensor;
}

template <typename T>
absl::StatusOr<at::Tensor> TensorFromValues(absl::string_view input, c10::ScalarType type,
                                            absl::Span<const int64_t> shape,
                                            const std::vector<T>& values, int64_t max_elements) {
  absl::StatusOr<int64_t> count = CheckedElementCount(input, shape, max_elements);
  if (!count.ok()) return count.status();
  if (static_cast<int64_t>(values.size()) != *count) {
    return absl::InvalidArgumentError(absl::StrCat("input '", input, "': ", values.size(),
                                                   " elements of data, but shape [",
                                                   absl::StrJoin(shape, ","), "] has ", *count));
  }
  at::Tensor tensor = at::empty(std::vector<int64_t>(shape.begin(), shape.end()),
                                at::TensorOptions().dtype(c10::CppTypeToScalarType<T>::value));
  if (!values.empty()) std::memcpy(tensor.data_ptr(), values.data(), values.size() * sizeof(T));
  return tensor.to(type);
}

template absl::StatusOr<at::Tensor> TensorFromValues(absl::string_view, c10::ScalarType,
                                                     absl::Span<const int64_t>,
                                                     const std::vector<uint8_t>&, int64_t);
template absl::StatusOr<at::Tensor> TensorFromValues(absl::string_view, c10::ScalarType,
                                                     absl::Span<const int64_t>,
                                                     const std::vector<int32_t>&, int64_t);
template absl::StatusOr<at::Tensor> TensorFromValues(absl::string_view, c10::ScalarType,
                                                     absl::Span<const int64_t>,
                                                     const std::vector<int64_t>&, int64_t);
template absl::StatusOr<at::Tensor> TensorFromValues(absl::string_view, c10::ScalarType,
                                                     absl::Span<const int64_t>,
                                                     const std::vector<float>&, int64_t);
template absl::StatusOr<at::Tensor> TensorFromValues(absl::string_view, c10::ScalarType,
                                                     absl::Span<const int64_t>,
                                                     const std::vector<double>&, int64_t);

absl::Status CheckIntegerRange(absl::string_view input, c10::ScalarType type,
                               const std::vector<int64_t>& values) {
  int64_t min = std::numeric_limits<int64_t>::min();
  int64_t max = std::numeric_limits<int64_t>::max();
  switch (type) {
    case c10::ScalarType::Byte:
      min = std::numeric_limits<uint8_t>::min();
      max = std::numeric_limits<uint8_t>::max();
      break;
    case c10::ScalarType::Char:
      min = std::numeric_limits<int8_t>::min();
      max = std::numeric_limits<int8_t>::max();
      break;
    case c10::ScalarType::Short:
      min = std::numeric_limits<int16_t>::min();
      max = std::numeric_limits<int16_t>::max();
      break;
    case c10::ScalarType::Int:
      min = std::numeric_limits<int32_t>::min();
      max = std::numeric_limits<int32_t>::max();
      break;
    default:
      break;
  }
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] < min || values[i] > max) {
      return absl::InvalidArgumentError(absl::StrCat("input '", input, "': element ", i, " (",
                                                     values[i], ") is out of the range of ",
                                                     c10::toString(type)));
    }
  }
  return absl::OkStatus();
}

std::string RawBytes(const at::Tensor& tensor) {
  const at::Tensor contiguous = tensor.contiguous();
  return std::string(static_cast<const char*>(contiguous.data_ptr()), contiguous.nbytes());
}

}  // namespace server
}  // namespace static_runtime
