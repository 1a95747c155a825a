#include "server/inference_handler.h"

#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "glog/logging.h"
#include "openssl/crypto.h"

namespace static_runtime {
namespace server {

const std::vector<std::string>& InferenceHandler::Extensions() {
  static const auto* const kExtensions =
      new std::vector<std::string>{"model_repository", "binary_tensor_data", "metrics"};
  return *kExtensions;
}

bool InferenceHandler::Authorized(absl::string_view authorization) const {
  if (token_.empty()) return true;
  const std::string expected = absl::StrCat("Bearer ", token_);
  return authorization.size() == expected.size() &&
         CRYPTO_memcmp(authorization.data(), expected.data(), expected.size()) == 0;
}

absl::Time DeadlineOf(int64_t timeout_us, absl::Time deadline) {
  if (timeout_us <= 0) return deadline;
  return std::min(deadline, absl::Now() + absl::Microseconds(timeout_us));
}

std::string InferenceHandler::IdOf(std::string id) {
  return id.empty() ? absl::StrCat("sr-", next_id_.fetch_add(1)) : std::move(id);
}

absl::Status InferenceHandler::Refuse(std::string id, absl::string_view model,
                                      const absl::Status& status) {
  id = IdOf(std::move(id));
  LOG(WARNING) << "request " << id << " (model '" << model << "'): " << status.message();
  return absl::Status(status.code(), absl::StrCat("request ", id, ": ", status.message()));
}

absl::StatusOr<InferResponse> InferenceHandler::Infer(InferRequest request) {
  request.id = IdOf(std::move(request.id));
  const std::string id = request.id;
  auto fail = [&](const absl::Status& status) { return Refuse(id, request.model_name, status); };
  absl::StatusOr<std::shared_ptr<ServedModel>> model =
      repository_.Find(request.model_name, request.model_version);
  if (!model.ok()) return fail(model.status());
  absl::StatusOr<std::vector<NamedTensor>> outputs =
      (*model)->Infer(std::move(request.inputs), request.deadline, request.cancelled);
  if (!outputs.ok()) return fail(outputs.status());
  InferResponse response{request.model_name, ModelRepository::kVersion, id, {}};
  if (request.requested_outputs.empty()) {
    response.outputs = *std::move(outputs);
    return response;
  }
  absl::flat_hash_set<std::string> produced;
  for (const NamedTensor& output : *outputs) produced.insert(output.name);
  for (const std::string& name : request.requested_outputs) {
    if (!produced.contains(name)) {
      std::vector<std::string> names(produced.begin(), produced.end());
      std::sort(names.begin(), names.end());
      return fail(absl::InvalidArgumentError(absl::StrCat(
          "no output '", name, "'; the model's outputs are: ", absl::StrJoin(names, ", "))));
    }
  }
  const absl::flat_hash_set<std::string> wanted(request.requested_outputs.begin(),
                                                request.requested_outputs.end());
  for (NamedTensor& output : *outputs) {
    if (wanted.contains(output.name)) response.outputs.push_back(std::move(output));
  }
  return response;
}

}  // namespace server
}  // namespace static_runtime
