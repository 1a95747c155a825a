#include "tools/sr/input_spec.h"

#include <string>

#include "ATen/ATen.h"
#include "ATen/CPUGeneratorImpl.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "errors/status_macros.h"

namespace static_runtime {
namespace sr {
namespace {

const absl::flat_hash_map<std::string, at::ScalarType>& Dtypes() {
  static const auto* const kDtypes = new absl::flat_hash_map<std::string, at::ScalarType>{
      {"f32", at::kFloat}, {"f64", at::kDouble}, {"f16", at::kHalf},  {"i32", at::kInt},
      {"i64", at::kLong},  {"u8", at::kByte},    {"bool", at::kBool},
  };
  return *kDtypes;
}

absl::Status ItemError(size_t index, absl::string_view item, absl::string_view problem) {
  return absl::InvalidArgumentError(
      absl::StrCat("input spec item ", index, " '", item, "': ", problem));
}

absl::StatusOr<c10::IValue> ParseScalar(size_t index, absl::string_view item) {
  const std::pair<absl::string_view, absl::string_view> parts = absl::StrSplit(item, '=');
  const absl::string_view kind = parts.first;
  const absl::string_view text = parts.second;
  if (kind == "int") {
    int64_t value;
    if (absl::SimpleAtoi(text, &value)) return c10::IValue(value);
  } else if (kind == "float") {
    double value;
    if (absl::SimpleAtod(text, &value)) return c10::IValue(value);
  } else if (kind == "bool") {
    if (text == "0" || text == "1") return c10::IValue(text == "1");
  } else {
    return ItemError(index, item, "a scalar is int=N, float=X or bool=0|1");
  }
  return ItemError(index, item, absl::StrCat("'", text, "' is not a valid ", kind));
}

absl::StatusOr<c10::IValue> ParseTensor(size_t index, absl::string_view item,
                                        at::Generator& generator) {
  const size_t open = item.find('[');
  const size_t close = item.find(']');
  if (open == absl::string_view::npos || close == absl::string_view::npos || close < open) {
    return ItemError(index, item, "expected <dtype>[<sizes>], e.g. f32[8,64]");
  }
  const std::string dtype_name(item.substr(0, open));
  auto dtype = Dtypes().find(dtype_name);
  if (dtype == Dtypes().end()) {
    return ItemError(index, item,
                     absl::StrCat("unknown dtype '", dtype_name,
                                  "' (one of f32, f64, f16, i32, i64, u8, bool)"));
  }
  std::vector<int64_t> shape;
  const absl::string_view sizes = item.substr(open + 1, close - open - 1);
  if (!absl::StripAsciiWhitespace(sizes).empty()) {
    for (absl::string_view size : absl::StrSplit(sizes, ',')) {
      int64_t value;
      if (!absl::SimpleAtoi(size, &value) || value < 0) {
        return ItemError(index, item, absl::StrCat("size '", size, "' is not a number >= 0"));
      }
      shape.push_back(value);
    }
  }
  absl::string_view rest = item.substr(close + 1);
  int64_t low = 0;
  int64_t high = 9;
  if (!rest.empty()) {
    if (!absl::ConsumePrefix(&rest, "{") || !absl::ConsumeSuffix(&rest, "}")) {
      return ItemError(index, item, "expected a range {low..high} after the sizes");
    }
    const std::pair<absl::string_view, absl::string_view> bounds = absl::StrSplit(rest, "..");
    if (!absl::SimpleAtoi(bounds.first, &low) || !absl::SimpleAtoi(bounds.second, &high) ||
        low > high) {
      return ItemError(index, item, "a range is {low..high} with integers low <= high");
    }
    if (!at::isIntegralType(dtype->second, /*includeBool=*/false)) {
      return ItemError(index, item, "a range is only allowed for integer dtypes");
    }
  }
  at::Tensor tensor;
  if (dtype->second == at::kBool) {
    tensor = at::randint(0, 2, shape, generator).to(at::kBool);
  } else if (at::isIntegralType(dtype->second, /*includeBool=*/false)) {
    tensor = at::randint(low, high + 1, shape, generator).to(dtype->second);
  } else {
    tensor = at::randn(shape, generator).to(dtype->second);
  }
  return c10::IValue(tensor);
}

}  // namespace

absl::StatusOr<std::vector<c10::IValue>> ParseInputSpec(absl::string_view spec, uint64_t seed) {
  at::Generator generator = at::detail::createCPUGenerator(seed);
  std::vector<c10::IValue> inputs;
  size_t index = 0;
  for (absl::string_view item : absl::StrSplit(spec, ';', absl::SkipWhitespace())) {
    ++index;
    item = absl::StripAsciiWhitespace(item);
    ASSIGN_OR_RETURN(c10::IValue value, item.find('=') != absl::string_view::npos
                                            ? ParseScalar(index, item)
                                            : ParseTensor(index, item, generator));
    inputs.push_back(std::move(value));
  }
  if (inputs.empty()) return absl::InvalidArgumentError("the input spec is empty");
  return inputs;
}

}  // namespace sr
}  // namespace static_runtime
