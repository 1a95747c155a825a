#include "server/model_config.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "server/tensor_codec.h"

namespace static_runtime {
namespace server {
namespace {

using nlohmann::json;

absl::Status WrongType(absl::string_view key, absl::string_view expected) {
  return absl::InvalidArgumentError(absl::StrCat("config.json: '", key, "' must be ", expected));
}

absl::StatusOr<int64_t> IntIn(const json& value, absl::string_view key, int64_t min, int64_t max) {
  if (!value.is_number_integer()) return WrongType(key, "an integer");
  const int64_t number = value.get<int64_t>();
  if (number < min || number > max) {
    return absl::InvalidArgumentError(
        absl::StrCat("config.json: '", key, "' is ", number, ", not in [", min, ", ", max, "]"));
  }
  return number;
}

// One tensor of `inputs` or of a warm-up sample (`where`), whose sizes may
// be -1 (any) only where `any_size`.
absl::StatusOr<DeclaredTensor> ParseTensor(const json& entry, const std::string& where,
                                           bool any_size) {
  if (!entry.is_object()) return WrongType(where, "an object");
  DeclaredTensor tensor;
  for (const auto& [key, value] : entry.items()) {
    if (key == "name" && value.is_string()) {
      tensor.name = value.get<std::string>();
    } else if (key == "datatype" && value.is_string()) {
      tensor.datatype = value.get<std::string>();
    } else if (key == "shape" && value.is_array()) {
      for (const json& size : value) {
        if (!size.is_number_integer() || size.get<int64_t>() < (any_size ? -1 : 0)) {
          return WrongType(absl::StrCat(where, ".shape"),
                           any_size ? "a list of sizes (-1: any)" : "a list of sizes");
        }
        tensor.shape.push_back(size.get<int64_t>());
      }
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("config.json: ", where, ": unknown key or wrong type: '", key, "'"));
    }
  }
  if (tensor.name.empty()) return WrongType(absl::StrCat(where, ".name"), "a non-empty string");
  if (!any_size && tensor.datatype.empty()) {
    return WrongType(absl::StrCat(where, ".datatype"), "a datatype (FP32, INT64, ...)");
  }
  if (!tensor.datatype.empty()) {
    absl::StatusOr<c10::ScalarType> type = ScalarTypeOfInput(tensor.name, tensor.datatype);
    if (!type.ok()) return type.status();
  }
  return tensor;
}

}  // namespace

absl::StatusOr<ModelConfig> ParseModelConfig(absl::string_view text) {
  const json config = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (config.is_discarded()) return absl::InvalidArgumentError("config.json is not valid JSON");
  if (!config.is_object()) return WrongType("the top level", "an object");
  ModelConfig result;
  for (const auto& [key, value] : config.items()) {
    if (key == "max_batch_size") {
      absl::StatusOr<int64_t> number = IntIn(value, key, 0, 1 << 20);
      if (!number.ok()) return number.status();
      result.max_batch_size = *number;
    } else if (key == "max_queue_delay_us") {
      absl::StatusOr<int64_t> number = IntIn(value, key, 0, 10'000'000);
      if (!number.ok()) return number.status();
      result.max_queue_delay_us = *number;
    } else if (key == "instances") {
      absl::StatusOr<int64_t> number = IntIn(value, key, 1, 256);
      if (!number.ok()) return number.status();
      result.instances = static_cast<int>(*number);
    } else if (key == "queue_size") {
      absl::StatusOr<int64_t> number = IntIn(value, key, 0, 1 << 20);
      if (!number.ok()) return number.status();
      result.queue_size = static_cast<int>(*number);
    } else if (key == "options") {
      if (!value.is_object()) return WrongType(key, "an object of boolean options");
      for (const auto& [name, flag] : value.items()) {
        const BoolOption* option = FindBoolOption(name);
        if (option == nullptr) {
          return absl::InvalidArgumentError(
              absl::StrCat("config.json: options: unknown option '", name, "'"));
        }
        if (!flag.is_boolean()) return WrongType(absl::StrCat("options.", name), "true or false");
        result.options.*option->member = flag.get<bool>();
      }
      absl::Status valid = ValidateOptions(result.options);
      if (!valid.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("config.json: options: ", valid.message()));
      }
    } else if (key == "inputs") {
      if (!value.is_array()) return WrongType(key, "a list of {name, datatype, shape}");
      for (size_t i = 0; i < value.size(); ++i) {
        absl::StatusOr<DeclaredTensor> tensor =
            ParseTensor(value[i], absl::StrCat("inputs[", i, "]"), /*any_size=*/true);
        if (!tensor.ok()) return tensor.status();
        result.inputs.push_back(*std::move(tensor));
      }
    } else if (key == "warmup") {
      if (!value.is_array()) return WrongType(key, "a list of samples");
      for (size_t i = 0; i < value.size(); ++i) {
        const std::string sample = absl::StrCat("warmup[", i, "]");
        if (!value[i].is_array() || value[i].empty()) {
          return WrongType(sample, "a non-empty list of {name, datatype, shape}");
        }
        std::vector<DeclaredTensor> tensors;
        for (size_t j = 0; j < value[i].size(); ++j) {
          absl::StatusOr<DeclaredTensor> tensor =
              ParseTensor(value[i][j], absl::StrCat(sample, "[", j, "]"), /*any_size=*/false);
          if (!tensor.ok()) return tensor.status();
          tensors.push_back(*std::move(tensor));
        }
        result.warmup.push_back(std::move(tensors));
      }
    } else {
      return absl::InvalidArgumentError(absl::StrCat("config.json: unknown key '", key, "'"));
    }
  }
  return result;
}

}  // namespace server
}  // namespace static_runtime
