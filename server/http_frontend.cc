#include "server/http_frontend.h"

#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "errors/status_macros.h"
#include "httplib.h"
#include "nlohmann/json.hpp"
#include "runtime/package.h"
#include "server/model_metrics.h"
#include "server/tensor_codec.h"

namespace static_runtime {
namespace server {
namespace {

using nlohmann::json;

constexpr char kHeaderLength[] = "Inference-Header-Content-Length";
// A deadline in microseconds from when the server reads the request, as
// the request parameter "timeout" gives one.
constexpr char kTimeoutHeader[] = "Inference-Timeout-Us";
constexpr char kJson[] = "application/json";

int HttpStatusOf(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kOk:
      return 200;
    case absl::StatusCode::kNotFound:
      return 404;
    case absl::StatusCode::kUnauthenticated:
      return 401;
    case absl::StatusCode::kResourceExhausted:
      return 429;
    case absl::StatusCode::kUnavailable:
      return 503;
    case absl::StatusCode::kDeadlineExceeded:
      return 504;
    case absl::StatusCode::kInternal:
    case absl::StatusCode::kUnknown:
    case absl::StatusCode::kDataLoss:
      return 500;
    default:
      return 400;
  }
}

void SendError(httplib::Response& response, const absl::Status& status) {
  response.status = HttpStatusOf(status.code());
  response.set_content(json{{"error", std::string(status.message())}}.dump(), kJson);
}

void SendJson(httplib::Response& response, const json& body) {
  response.status = 200;
  response.set_content(body.dump(), kJson);
}

// The elements of a JSON "data" array (nested arrays flattened), as `T`.
template <typename T>
absl::Status Flatten(const json& data, const std::string& input, int64_t max_elements,
                     std::vector<T>& values) {
  if (data.is_array()) {
    for (const json& element : data) {
      RETURN_IF_ERROR(Flatten(element, input, max_elements, values));
    }
    return absl::OkStatus();
  }
  if (static_cast<int64_t>(values.size()) >= max_elements) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input '", input, "': more than the server's limit of ", max_elements, " elements"));
  }
  if constexpr (std::is_same_v<T, uint8_t>) {
    if (!data.is_boolean()) {
      return absl::InvalidArgumentError(
          absl::StrCat("input '", input, "': BOOL data holds ", data.type_name()));
    }
    values.push_back(data.get<bool>() ? 1 : 0);
  } else if constexpr (std::is_same_v<T, int64_t>) {
    if (!data.is_number_integer() ||
        (data.is_number_unsigned() &&
         data.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))) {
      return absl::InvalidArgumentError(
          absl::StrCat("input '", input, "': integer data holds ", data.dump(), ", not an int64"));
    }
    values.push_back(data.get<int64_t>());
  } else {
    if (!data.is_number()) {
      return absl::InvalidArgumentError(
          absl::StrCat("input '", input, "': numeric data holds ", data.type_name()));
    }
    values.push_back(data.get<double>());
  }
  return absl::OkStatus();
}

absl::StatusOr<at::Tensor> TensorFromJson(const json& data, const std::string& input,
                                          c10::ScalarType type, const std::vector<int64_t>& shape,
                                          const ServerLimits& limits) {
  ASSIGN_OR_RETURN(int64_t count, CheckedElementCount(input, shape, limits.max_elements));
  if (type == c10::ScalarType::Bool) {
    std::vector<uint8_t> values;
    RETURN_IF_ERROR(Flatten(data, input, count + 1, values));
    return TensorFromValues(input, type, shape, values, limits.max_elements);
  }
  if (c10::isIntegralType(type, /*includeBool=*/false)) {
    std::vector<int64_t> values;
    RETURN_IF_ERROR(Flatten(data, input, count + 1, values));
    RETURN_IF_ERROR(CheckIntegerRange(input, type, values));
    return TensorFromValues(input, type, shape, values, limits.max_elements);
  }
  std::vector<double> values;
  RETURN_IF_ERROR(Flatten(data, input, count + 1, values));
  return TensorFromValues(input, type, shape, values, limits.max_elements);
}

// A tensor's elements as a flat JSON array.
json JsonData(const at::Tensor& tensor) {
  const at::Tensor flat = tensor.contiguous().reshape({-1});
  json data = json::array();
  if (tensor.scalar_type() == c10::ScalarType::Bool) {
    const bool* values = flat.data_ptr<bool>();
    for (int64_t i = 0; i < flat.numel(); ++i) data.push_back(values[i]);
  } else if (c10::isIntegralType(tensor.scalar_type(), /*includeBool=*/false)) {
    const at::Tensor wide = flat.to(at::kLong);
    const int64_t* values = wide.data_ptr<int64_t>();
    for (int64_t i = 0; i < wide.numel(); ++i) data.push_back(values[i]);
  } else {
    const at::Tensor wide = flat.to(at::kDouble);
    const double* values = wide.data_ptr<double>();
    for (int64_t i = 0; i < wide.numel(); ++i) data.push_back(values[i]);
  }
  return data;
}

// Parameters of a request, input or output: a JSON object (or absent).
absl::StatusOr<json> ParametersOf(const json& object, absl::string_view where) {
  auto it = object.find("parameters");
  if (it == object.end()) return json::object();
  if (!it->is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": 'parameters' must be an object"));
  }
  return *it;
}

absl::StatusOr<std::string> StringField(const json& object, const char* key,
                                        absl::string_view where, bool required) {
  auto it = object.find(key);
  if (it == object.end()) {
    if (!required) return std::string();
    return absl::InvalidArgumentError(absl::StrCat(where, ": '", key, "' is missing"));
  }
  if (!it->is_string()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": '", key, "' must be a string"));
  }
  return it->get<std::string>();
}

std::string ModelPattern(absl::string_view tail) {
  return absl::StrCat(R"(/v2/models/([^/]+)(?:/versions/([^/]+))?)", tail);
}

std::string Match(const httplib::Request& request, size_t i) {
  return i < request.matches.size() ? std::string(request.matches[i]) : std::string();
}

}  // namespace

absl::StatusOr<HttpInferRequest> DecodeHttpRequest(absl::string_view body,
                                                   std::optional<size_t> header_length,
                                                   const ServerLimits& limits) {
  if (header_length && *header_length > body.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        kHeaderLength, " is ", *header_length, ", more than the body's ", body.size(), " bytes"));
  }
  const absl::string_view header = header_length ? body.substr(0, *header_length) : body;
  absl::string_view binary = header_length ? body.substr(*header_length) : absl::string_view();
  const json document = json::parse(header, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded() || !document.is_object()) {
    return absl::InvalidArgumentError("the request is not a JSON object");
  }
  HttpInferRequest decoded;
  InferRequest& request = decoded.request;
  ASSIGN_OR_RETURN(request.id, StringField(document, "id", "the request", false));
  ASSIGN_OR_RETURN(json parameters, ParametersOf(document, "the request"));
  if (auto timeout = parameters.find("timeout"); timeout != parameters.end()) {
    if (!timeout->is_number_integer()) {
      return absl::InvalidArgumentError("parameters.timeout must be microseconds, an integer");
    }
    request.deadline = DeadlineOf(timeout->get<int64_t>(), request.deadline);
  }
  if (auto binary_output = parameters.find("binary_data_output");
      binary_output != parameters.end()) {
    decoded.all_outputs_binary = binary_output->is_boolean() && binary_output->get<bool>();
  }
  auto inputs = document.find("inputs");
  if (inputs == document.end() || !inputs->is_array()) {
    return absl::InvalidArgumentError("the request's 'inputs' must be a list");
  }
  if (static_cast<int64_t>(inputs->size()) > limits.max_tensors) {
    return absl::InvalidArgumentError(absl::StrCat(
        inputs->size(), " inputs, more than the server's limit of ", limits.max_tensors));
  }
  for (size_t i = 0; i < inputs->size(); ++i) {
    const json& input = (*inputs)[i];
    const std::string where = absl::StrCat("inputs[", i, "]");
    if (!input.is_object()) return absl::InvalidArgumentError(where + " must be an object");
    ASSIGN_OR_RETURN(std::string name, StringField(input, "name", where, true));
    ASSIGN_OR_RETURN(std::string datatype, StringField(input, "datatype", where, true));
    ASSIGN_OR_RETURN(c10::ScalarType type, ScalarTypeOfInput(name, datatype));
    auto shape_field = input.find("shape");
    if (shape_field == input.end() || !shape_field->is_array()) {
      return absl::InvalidArgumentError(absl::StrCat("input '", name, "': 'shape' must be a list"));
    }
    std::vector<int64_t> shape;
    for (const json& size : *shape_field) {
      if (!size.is_number_integer()) {
        return absl::InvalidArgumentError(
            absl::StrCat("input '", name, "': shape holds ", size.dump(), ", not an integer"));
      }
      shape.push_back(size.get<int64_t>());
    }
    ASSIGN_OR_RETURN(json input_parameters, ParametersOf(input, where));
    at::Tensor tensor;
    if (auto size = input_parameters.find("binary_data_size"); size != input_parameters.end()) {
      if (!size->is_number_unsigned()) {
        return absl::InvalidArgumentError(
            absl::StrCat("input '", name, "': binary_data_size must be a byte count"));
      }
      const uint64_t bytes = size->get<uint64_t>();
      if (bytes > binary.size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("input '", name, "': binary_data_size is ", bytes, ", but only ",
                         binary.size(), " bytes of binary data are left in the body"));
      }
      ASSIGN_OR_RETURN(
          tensor, TensorFromRaw(name, type, shape, binary.substr(0, bytes), limits.max_elements));
      binary.remove_prefix(bytes);
    } else {
      auto data = input.find("data");
      if (data == input.end()) {
        return absl::InvalidArgumentError(
            absl::StrCat("input '", name, "' has neither 'data' nor binary_data_size"));
      }
      ASSIGN_OR_RETURN(tensor, TensorFromJson(*data, name, type, shape, limits));
    }
    request.inputs.push_back({std::move(name), std::move(tensor)});
  }
  if (!binary.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(binary.size(), " bytes of binary data are left over after the last input"));
  }
  if (auto outputs = document.find("outputs"); outputs != document.end()) {
    if (!outputs->is_array()) return absl::InvalidArgumentError("'outputs' must be a list");
    for (size_t i = 0; i < outputs->size(); ++i) {
      const json& output = (*outputs)[i];
      const std::string where = absl::StrCat("outputs[", i, "]");
      if (!output.is_object()) return absl::InvalidArgumentError(where + " must be an object");
      ASSIGN_OR_RETURN(std::string name, StringField(output, "name", where, true));
      ASSIGN_OR_RETURN(json output_parameters, ParametersOf(output, where));
      if (auto flag = output_parameters.find("binary_data");
          flag != output_parameters.end() && flag->is_boolean() && flag->get<bool>()) {
        decoded.binary_outputs.push_back(name);
      }
      request.requested_outputs.push_back(std::move(name));
    }
  }
  return decoded;
}

absl::StatusOr<HttpBody> EncodeHttpResponse(const InferResponse& response,
                                            const HttpInferRequest& request) {
  const absl::flat_hash_set<std::string> binary_outputs(request.binary_outputs.begin(),
                                                        request.binary_outputs.end());
  json outputs = json::array();
  std::string binary;
  for (const NamedTensor& output : response.outputs) {
    ASSIGN_OR_RETURN(std::string datatype, DatatypeOf(output.tensor.scalar_type()));
    json entry = {
        {"name", output.name}, {"datatype", datatype}, {"shape", output.tensor.sizes().vec()}};
    if (request.all_outputs_binary || binary_outputs.contains(output.name)) {
      const std::string bytes = RawBytes(output.tensor);
      entry["parameters"] = {{"binary_data_size", bytes.size()}};
      binary += bytes;
    } else if (output.tensor.scalar_type() == c10::ScalarType::Half ||
               output.tensor.scalar_type() == c10::ScalarType::BFloat16) {
      return absl::InvalidArgumentError(
          absl::StrCat("output '", output.name, "' is ", datatype,
                       ", which travels only as binary data: ask for binary_data"));
    } else {
      entry["data"] = JsonData(output.tensor);
    }
    outputs.push_back(std::move(entry));
  }
  json document = {{"model_name", response.model_name},
                   {"model_version", response.model_version},
                   {"id", response.id},
                   {"outputs", std::move(outputs)}};
  HttpBody body{document.dump(), std::nullopt};
  if (!binary.empty()) {
    body.header_length = body.body.size();
    body.body += binary;
  }
  return body;
}

HttpFrontend::HttpFrontend(InferenceHandler& handler) : handler_(handler) {}

HttpFrontend::~HttpFrontend() { Shutdown(); }

void HttpFrontend::Route() {
  httplib::Server& server = *server_;
  server.set_pre_routing_handler(
      [this](const httplib::Request& request, httplib::Response& response) {
        if (absl::StartsWith(request.path, "/v2/health/") ||
            handler_.Authorized(request.get_header_value("Authorization"))) {
          return httplib::Server::HandlerResponse::Unhandled;
        }
        SendError(response,
                  absl::UnauthenticatedError("this server needs 'Authorization: Bearer <token>'"));
        return httplib::Server::HandlerResponse::Handled;
      });
  server.Get("/v2/health/live",
             [](const httplib::Request&, httplib::Response& response) { response.status = 200; });
  server.Get("/v2/health/ready", [this](const httplib::Request&, httplib::Response& response) {
    response.status = handler_.Ready() ? 200 : 503;
  });
  server.Get("/v2", [](const httplib::Request&, httplib::Response& response) {
    SendJson(response, {{"name", InferenceHandler::kServerName},
                        {"version", kLibraryVersion},
                        {"extensions", InferenceHandler::Extensions()}});
  });
  server.Get(
      ModelPattern("/ready"), [this](const httplib::Request& request, httplib::Response& response) {
        response.status =
            handler_.repository().Find(Match(request, 1), Match(request, 2)).ok() ? 200 : 503;
      });
  server.Get(
      ModelPattern(""), [this](const httplib::Request& request, httplib::Response& response) {
        absl::StatusOr<std::shared_ptr<ServedModel>> model =
            handler_.repository().Find(Match(request, 1), Match(request, 2));
        if (!model.ok()) return SendError(response, model.status());
        auto tensors = [](const std::vector<TensorMetadata>& list) {
          json entries = json::array();
          for (const TensorMetadata& tensor : list) {
            entries.push_back(
                {{"name", tensor.name}, {"datatype", tensor.datatype}, {"shape", tensor.shape}});
          }
          return entries;
        };
        SendJson(response, {{"name", (*model)->name()},
                            {"versions", {ModelRepository::kVersion}},
                            {"platform", "pytorch_libtorch"},
                            {"inputs", tensors((*model)->signature().inputs())},
                            {"outputs", tensors((*model)->signature().outputs())}});
      });
  // The body through a content reader: httplib would otherwise parse a body
  // sent as application/x-www-form-urlencoded (curl -d's default) as a form,
  // and refuse one above 8 KiB.
  server.Post(ModelPattern("/infer"), [this](const httplib::Request& request,
                                             httplib::Response& response,
                                             const httplib::ContentReader& read) {
    // Errors name the request: by its own id once decoded, else by one made here.
    const auto refuse = [&](std::string id, const absl::Status& status) {
      SendError(response, handler_.Refuse(std::move(id), Match(request, 1), status));
    };
    std::string content;
    const size_t limit = static_cast<size_t>(handler_.limits().max_request_bytes);
    const bool complete = read([&content, limit](const char* data, size_t length) {
      content.append(data, length);
      return content.size() <= limit;
    });
    if (!complete) {
      return refuse("", absl::InvalidArgumentError(absl::StrCat(
                            "the request is incomplete or larger than the server's limit of ",
                            limit, " bytes")));
    }
    std::optional<size_t> header_length;
    if (request.has_header(kHeaderLength)) {
      size_t length = 0;
      if (!absl::SimpleAtoi(request.get_header_value(kHeaderLength), &length)) {
        return refuse(
            "", absl::InvalidArgumentError(absl::StrCat(kHeaderLength, " is not a byte count")));
      }
      header_length = length;
    }
    absl::StatusOr<HttpInferRequest> decoded =
        DecodeHttpRequest(content, header_length, handler_.limits());
    if (!decoded.ok()) return refuse("", decoded.status());
    HttpInferRequest infer = *std::move(decoded);
    if (request.has_header(kTimeoutHeader)) {
      int64_t timeout_us = 0;
      if (!absl::SimpleAtoi(request.get_header_value(kTimeoutHeader), &timeout_us) ||
          timeout_us <= 0) {
        return refuse(infer.request.id,
                      absl::InvalidArgumentError(
                          absl::StrCat(kTimeoutHeader, " is not a positive microsecond count")));
      }
      infer.request.deadline = DeadlineOf(timeout_us, infer.request.deadline);
    }
    infer.request.model_name = Match(request, 1);
    infer.request.model_version = Match(request, 2);
    absl::StatusOr<InferResponse> result = handler_.Infer(infer.request);
    if (!result.ok()) return SendError(response, result.status());
    absl::StatusOr<HttpBody> body = EncodeHttpResponse(*result, infer);
    if (!body.ok()) return refuse(result->id, body.status());
    response.status = 200;
    if (body->header_length) {
      response.set_header(kHeaderLength, absl::StrCat(*body->header_length));
      response.set_content(std::move(body->body), "application/octet-stream");
    } else {
      response.set_content(std::move(body->body), kJson);
    }
  });
  server.Post("/v2/repository/index",
              [this](const httplib::Request& request, httplib::Response& response) {
                const json body = json::parse(request.body, nullptr, false);
                const bool ready_only = body.is_object() && body.value("ready", false);
                json models = json::array();
                for (const ModelIndexEntry& entry : handler_.repository().Index()) {
                  if (ready_only && entry.state != "READY") continue;
                  models.push_back({{"name", entry.name},
                                    {"version", ModelRepository::kVersion},
                                    {"state", entry.state},
                                    {"reason", entry.reason}});
                }
                SendJson(response, models);
              });
  server.Post(R"(/v2/repository/models/([^/]+)/(load|unload))",
              [this](const httplib::Request& request, httplib::Response& response) {
                const std::string name = Match(request, 1);
                const absl::Status status = Match(request, 2) == "load"
                                                ? handler_.repository().Load(name)
                                                : handler_.repository().Unload(name);
                if (!status.ok()) return SendError(response, status);
                SendJson(response, json::object());
              });
  server.Get("/metrics", [this](const httplib::Request&, httplib::Response& response) {
    std::vector<ModelSamples> metrics;
    const auto models = handler_.repository().ReadyModels();
    for (const auto& [name, model] : models) {
      metrics.push_back({name, &model->metrics(), model->memory()});
    }
    response.set_content(PrometheusText(metrics), "text/plain; version=0.0.4");
  });
}

absl::StatusOr<int> HttpFrontend::Start(const std::string& address, const TlsFiles& tls,
                                        int threads) {
  const std::vector<std::string> parts = absl::StrSplit(address, absl::MaxSplits(':', 1));
  int port = 0;
  if (parts.size() != 2 || !absl::SimpleAtoi(parts[1], &port) || port < 0 || port > 65535) {
    return absl::InvalidArgumentError(absl::StrCat("--http=", address, ": not HOST:PORT"));
  }
  if (tls.enabled()) {
    auto secure =
        std::make_unique<httplib::SSLServer>(tls.certificate.c_str(), tls.private_key.c_str());
    if (!secure->is_valid()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "HTTPS: cannot use the certificate ", tls.certificate, " and key ", tls.private_key));
    }
    server_ = std::move(secure);
  } else {
    server_ = std::make_unique<httplib::Server>();
  }
  server_->set_payload_max_length(static_cast<size_t>(handler_.limits().max_request_bytes));
  server_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  Route();
  if (port == 0) {
    port = server_->bind_to_any_port(parts[0]);
    if (port < 0) port = 0;
  } else if (!server_->bind_to_port(parts[0], port)) {
    port = 0;
  }
  if (port == 0) {
    server_.reset();
    return absl::UnavailableError(absl::StrCat("HTTP cannot listen on ", address));
  }
  listener_ = std::thread([this] { server_->listen_after_bind(); });
  return port;
}

void HttpFrontend::Shutdown() {
  if (server_ == nullptr) return;
  server_->stop();
  if (listener_.joinable()) listener_.join();
  server_.reset();
}

}  // namespace server
}  // namespace static_runtime
