#include "server/grpc_frontend.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "errors/status_macros.h"
#include "grpcpp/grpcpp.h"
#include "runtime/package.h"
#include "server/open_inference.grpc.pb.h"
#include "server/read_file.h"
#include "server/tensor_codec.h"

namespace static_runtime {
namespace server {
namespace {

// Threads gRPC may run calls on.
constexpr int kMaxThreads = 256;

// ModelMetadata's platform: TorchScript models, as Triton names them.
constexpr char kPlatform[] = "pytorch_libtorch";

grpc::Status ToGrpc(const absl::Status& status) {
  // absl::StatusCode and grpc::StatusCode share their numbers.
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), std::string(status.message()));
}

template <typename To, typename From>
std::vector<To> Narrowed(const google::protobuf::RepeatedField<From>& values) {
  return std::vector<To>(values.begin(), values.end());
}

absl::StatusOr<at::Tensor> TensorFromContents(
    const inference::ModelInferRequest::InferInputTensor& input, c10::ScalarType type,
    const std::vector<int64_t>& shape, const ServerLimits& limits) {
  const inference::InferTensorContents& contents = input.contents();
  const std::string& name = input.name();
  switch (type) {
    case c10::ScalarType::Float:
      return TensorFromValues(name, type, shape, Narrowed<float>(contents.fp32_contents()),
                              limits.max_elements);
    case c10::ScalarType::Double:
      return TensorFromValues(name, type, shape, Narrowed<double>(contents.fp64_contents()),
                              limits.max_elements);
    case c10::ScalarType::Long:
      return TensorFromValues(name, type, shape, Narrowed<int64_t>(contents.int64_contents()),
                              limits.max_elements);
    case c10::ScalarType::Byte:  // UINT8 in uint_contents, INT8/16/32 in int_contents
    case c10::ScalarType::Char:
    case c10::ScalarType::Short:
    case c10::ScalarType::Int: {
      const std::vector<int64_t> values = type == c10::ScalarType::Byte
                                              ? Narrowed<int64_t>(contents.uint_contents())
                                              : Narrowed<int64_t>(contents.int_contents());
      RETURN_IF_ERROR(CheckIntegerRange(name, type, values));
      return TensorFromValues(name, type, shape, values, limits.max_elements);
    }
    case c10::ScalarType::Bool:
      return TensorFromValues(name, type, shape, Narrowed<uint8_t>(contents.bool_contents()),
                              limits.max_elements);
    default:
      return absl::InvalidArgumentError(absl::StrCat("input '", name, "': ", input.datatype(),
                                                     " tensors travel only as raw contents"));
  }
}

}  // namespace

absl::StatusOr<InferRequest> DecodeGrpcRequest(const inference::ModelInferRequest& request,
                                               const ServerLimits& limits) {
  InferRequest decoded;
  decoded.model_name = request.model_name();
  decoded.model_version = request.model_version();
  decoded.id = request.id();
  if (request.inputs_size() > limits.max_tensors) {
    return absl::InvalidArgumentError(absl::StrCat(
        request.inputs_size(), " inputs, more than the server's limit of ", limits.max_tensors));
  }
  const bool raw = request.raw_input_contents_size() > 0;
  if (raw && request.raw_input_contents_size() != request.inputs_size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(request.raw_input_contents_size(), " raw_input_contents for ",
                     request.inputs_size(), " inputs: give one per input, or none"));
  }
  for (int i = 0; i < request.inputs_size(); ++i) {
    const auto& input = request.inputs(i);
    ASSIGN_OR_RETURN(c10::ScalarType type, ScalarTypeOfInput(input.name(), input.datatype()));
    const std::vector<int64_t> shape(input.shape().begin(), input.shape().end());
    at::Tensor tensor;
    if (raw) {
      if (input.has_contents()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "input '", input.name(), "' has contents, but the request uses raw_input_contents"));
      }
      ASSIGN_OR_RETURN(tensor, TensorFromRaw(input.name(), type, shape,
                                             request.raw_input_contents(i), limits.max_elements));
    } else {
      ASSIGN_OR_RETURN(tensor, TensorFromContents(input, type, shape, limits));
    }
    decoded.inputs.push_back({input.name(), std::move(tensor)});
  }
  for (const auto& output : request.outputs()) decoded.requested_outputs.push_back(output.name());
  auto timeout = request.parameters().find("timeout");
  if (timeout != request.parameters().end()) {
    decoded.deadline = DeadlineOf(timeout->second.int64_param(), decoded.deadline);
  }
  return decoded;
}

class GrpcFrontend::Service final : public inference::GRPCInferenceService::Service {
 public:
  explicit Service(InferenceHandler& handler) : handler_(handler) {}

  // Health checks need no token (orchestrators' probes carry none).
  grpc::Status ServerLive(grpc::ServerContext*, const inference::ServerLiveRequest*,
                          inference::ServerLiveResponse* response) override {
    response->set_live(true);
    return grpc::Status::OK;
  }

  grpc::Status ServerReady(grpc::ServerContext*, const inference::ServerReadyRequest*,
                           inference::ServerReadyResponse* response) override {
    response->set_ready(handler_.Ready());
    return grpc::Status::OK;
  }

  grpc::Status ModelReady(grpc::ServerContext*, const inference::ModelReadyRequest* request,
                          inference::ModelReadyResponse* response) override {
    response->set_ready(handler_.repository().Find(request->name(), request->version()).ok());
    return grpc::Status::OK;
  }

  grpc::Status ServerMetadata(grpc::ServerContext* context, const inference::ServerMetadataRequest*,
                              inference::ServerMetadataResponse* response) override {
    if (!Authorized(context)) return Unauthenticated();
    response->set_name(InferenceHandler::kServerName);
    response->set_version(kLibraryVersion);
    for (const std::string& extension : InferenceHandler::Extensions()) {
      response->add_extensions(extension);
    }
    return grpc::Status::OK;
  }

  grpc::Status ModelMetadata(grpc::ServerContext* context,
                             const inference::ModelMetadataRequest* request,
                             inference::ModelMetadataResponse* response) override {
    if (!Authorized(context)) return Unauthenticated();
    absl::StatusOr<std::shared_ptr<ServedModel>> model =
        handler_.repository().Find(request->name(), request->version());
    if (!model.ok()) return ToGrpc(model.status());
    response->set_name(request->name());
    response->add_versions(ModelRepository::kVersion);
    response->set_platform(kPlatform);
    auto add = [](const TensorMetadata& tensor,
                  inference::ModelMetadataResponse::TensorMetadata* to) {
      to->set_name(tensor.name);
      to->set_datatype(tensor.datatype);
      for (int64_t size : tensor.shape) to->add_shape(size);
    };
    for (const TensorMetadata& input : (*model)->signature().inputs()) {
      add(input, response->add_inputs());
    }
    for (const TensorMetadata& output : (*model)->signature().outputs()) {
      add(output, response->add_outputs());
    }
    return grpc::Status::OK;
  }

  grpc::Status ModelInfer(grpc::ServerContext* context, const inference::ModelInferRequest* request,
                          inference::ModelInferResponse* response) override {
    if (!Authorized(context)) return Unauthenticated();
    absl::StatusOr<InferRequest> decoded = DecodeGrpcRequest(*request, handler_.limits());
    if (!decoded.ok()) {
      return ToGrpc(handler_.Refuse(request->id(), request->model_name(), decoded.status()));
    }
    decoded->deadline = std::min(decoded->deadline, absl::FromChrono(context->deadline()));
    decoded->cancelled = [context] { return context->IsCancelled(); };
    absl::StatusOr<InferResponse> result = handler_.Infer(*std::move(decoded));
    if (!result.ok()) return ToGrpc(result.status());
    response->set_model_name(result->model_name);
    response->set_model_version(result->model_version);
    response->set_id(result->id);
    for (const NamedTensor& output : result->outputs) {
      const absl::Status described =
          DescribeTensor(output.name, output.tensor, *response->add_outputs());
      if (!described.ok()) return ToGrpc(described);
      response->add_raw_output_contents(RawBytes(output.tensor));
    }
    return grpc::Status::OK;
  }

  grpc::Status RepositoryIndex(grpc::ServerContext* context,
                               const inference::RepositoryIndexRequest* request,
                               inference::RepositoryIndexResponse* response) override {
    if (!Authorized(context)) return Unauthenticated();
    for (const ModelIndexEntry& entry : handler_.repository().Index()) {
      if (request->ready() && entry.state != "READY") continue;
      auto* model = response->add_models();
      model->set_name(entry.name);
      model->set_version(ModelRepository::kVersion);
      model->set_state(entry.state);
      model->set_reason(entry.reason);
    }
    return grpc::Status::OK;
  }

  grpc::Status RepositoryModelLoad(grpc::ServerContext* context,
                                   const inference::RepositoryModelLoadRequest* request,
                                   inference::RepositoryModelLoadResponse*) override {
    if (!Authorized(context)) return Unauthenticated();
    return ToGrpc(handler_.repository().Load(request->model_name()));
  }

  grpc::Status RepositoryModelUnload(grpc::ServerContext* context,
                                     const inference::RepositoryModelUnloadRequest* request,
                                     inference::RepositoryModelUnloadResponse*) override {
    if (!Authorized(context)) return Unauthenticated();
    return ToGrpc(handler_.repository().Unload(request->model_name()));
  }

 private:
  bool Authorized(const grpc::ServerContext* context) const {
    const auto& metadata = context->client_metadata();
    auto it = metadata.find("authorization");
    return handler_.Authorized(it == metadata.end()
                                   ? absl::string_view()
                                   : absl::string_view(it->second.data(), it->second.size()));
  }

  static grpc::Status Unauthenticated() {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                        "this server needs 'authorization: Bearer <token>' metadata");
  }

  InferenceHandler& handler_;
};

GrpcFrontend::GrpcFrontend(InferenceHandler& handler)
    : handler_(handler), service_(std::make_unique<Service>(handler)) {}

GrpcFrontend::~GrpcFrontend() { Shutdown(absl::Now()); }

absl::StatusOr<int> GrpcFrontend::Start(const std::string& address, const TlsFiles& tls) {
  std::shared_ptr<grpc::ServerCredentials> credentials = grpc::InsecureServerCredentials();
  if (tls.enabled()) {
    grpc::SslServerCredentialsOptions options;
    ASSIGN_OR_RETURN(std::string certificate, ReadFile(tls.certificate));
    ASSIGN_OR_RETURN(std::string key, ReadFile(tls.private_key));
    options.pem_key_cert_pairs.push_back({std::move(key), std::move(certificate)});
    credentials = grpc::SslServerCredentials(options);
  }
  grpc::ServerBuilder builder;
  // Calls beyond this many threads wait inside gRPC instead of each taking
  // a thread: with the models' bounded queues, what the server holds stays
  // bounded however many clients connect.
  grpc::ResourceQuota quota("sr_serve");
  quota.SetMaxThreads(kMaxThreads);
  builder.SetResourceQuota(quota);
  int port = 0;
  builder.AddListeningPort(address, credentials, &port);
  builder.RegisterService(service_.get());
  builder.SetMaxReceiveMessageSize(
      static_cast<int>(std::min<int64_t>(handler_.limits().max_request_bytes, INT32_MAX)));
  builder.SetMaxSendMessageSize(INT32_MAX);
  server_ = builder.BuildAndStart();
  if (server_ == nullptr || port == 0) {
    server_.reset();
    return absl::UnavailableError(absl::StrCat("gRPC cannot listen on ", address));
  }
  return port;
}

void GrpcFrontend::Shutdown(absl::Time deadline) {
  if (server_ == nullptr) return;
  server_->Shutdown(absl::ToChronoTime(deadline));
  server_->Wait();
  server_.reset();
}

}  // namespace server
}  // namespace static_runtime
