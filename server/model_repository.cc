#include "server/model_repository.h"

#include <filesystem>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "errors/status_macros.h"
#include "glog/logging.h"
#include "runtime/model_cache.h"
#include "runtime/package.h"
#include "server/read_file.h"

namespace static_runtime {
namespace server {
namespace {

namespace fs = std::filesystem;

bool IsModelName(const std::string& name) {
  if (name.empty() || name[0] == '.') return false;
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) {
      return false;
    }
  }
  return true;
}

}  // namespace

ModelRepository::ModelRepository(RepositoryOptions options) : options_(std::move(options)) {}

ModelRepository::~ModelRepository() { UnloadAll(); }

void ModelRepository::LoadAll() {
  std::error_code error;
  std::vector<std::string> names;
  for (const fs::directory_entry& entry : fs::directory_iterator(options_.directory, error)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_directory(error) && IsModelName(name)) names.push_back(name);
  }
  if (error) {
    LOG(ERROR) << "model repository " << options_.directory << ": " << error.message();
  }
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    absl::Status loaded = Load(name);
    if (!loaded.ok()) LOG(ERROR) << "model '" << name << "' is not ready: " << loaded.message();
  }
  absl::MutexLock lock(&mutex_);
  loaded_all_ = true;
}

bool ModelRepository::loaded_all() const {
  absl::MutexLock lock(&mutex_);
  return loaded_all_;
}

absl::StatusOr<std::shared_ptr<ServedModel>> ModelRepository::LoadFolder(
    const std::string& name) const {
  const fs::path folder = fs::path(options_.directory) / name;
  ModelConfig config;
  std::error_code error;
  if (fs::exists(folder / "config.json", error)) {
    ASSIGN_OR_RETURN(std::string text, ReadFile((folder / "config.json").string()));
    ASSIGN_OR_RETURN(config, ParseModelConfig(text));
  }
  const fs::path package = folder / "model.srpkg";
  const fs::path archive = folder / "model.pt";
  std::unique_ptr<Engine> engine;
  if (options_.engine == EngineKind::kJit) {
    if (!fs::exists(archive, error)) {
      return absl::NotFoundError(absl::StrCat(folder.string(), " has no model.pt (--engine=jit)"));
    }
    ASSIGN_OR_RETURN(engine, JitEngine(archive.string()));
  } else if (fs::exists(package, error)) {
    ASSIGN_OR_RETURN(StaticModule::Ptr module, LoadPackage(package.string()));
    engine = StaticRuntimeEngine(std::move(module), config.instances);
  } else if (fs::exists(archive, error)) {
    StaticModule::Ptr module;
    if (options_.cache_directory.empty()) {
      ASSIGN_OR_RETURN(module, StaticModule::FromFile(archive.string(), config.options));
    } else {
      ASSIGN_OR_RETURN(module,
                       ModelCache(options_.cache_directory).Load(archive.string(), config.options));
    }
    engine = StaticRuntimeEngine(std::move(module), config.instances);
  } else {
    return absl::NotFoundError(
        absl::StrCat(folder.string(), " has neither model.srpkg nor model.pt"));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<ServedModel> model,
                   ServedModel::Make(name, std::move(engine), std::move(config)));
  return std::shared_ptr<ServedModel>(std::move(model));
}

absl::Status ModelRepository::Load(const std::string& name) {
  if (!IsModelName(name)) {
    return absl::InvalidArgumentError(absl::StrCat("'", name, "' is not a model folder's name"));
  }
  std::error_code error;
  if (!fs::is_directory(fs::path(options_.directory) / name, error)) {
    return absl::NotFoundError(
        absl::StrCat("no model '", name, "' in the repository ", options_.directory));
  }
  {
    absl::MutexLock lock(&mutex_);
    Entry& entry = models_[name];
    if (entry.state.empty() || entry.state == "UNLOADED") entry.state = "LOADING";
  }
  absl::StatusOr<std::shared_ptr<ServedModel>> loaded = LoadFolder(name);
  std::shared_ptr<ServedModel> replaced;
  {
    absl::MutexLock lock(&mutex_);
    Entry& entry = models_[name];
    if (loaded.ok()) {
      replaced = std::move(entry.model);
      entry = {"READY", "", *loaded};
    } else if (entry.model == nullptr) {
      entry = {"UNAVAILABLE", std::string(loaded.status().message()), nullptr};
    }
  }
  if (replaced) replaced->Stop();
  if (!loaded.ok()) {
    return absl::Status(loaded.status().code(),
                        absl::StrCat("model '", name, "': ", loaded.status().message()));
  }
  LOG(INFO) << "model '" << name << "' is ready";
  return absl::OkStatus();
}

absl::Status ModelRepository::Unload(const std::string& name) {
  std::shared_ptr<ServedModel> model;
  {
    absl::MutexLock lock(&mutex_);
    auto it = models_.find(name);
    if (it == models_.end()) return absl::NotFoundError(absl::StrCat("no model '", name, "'"));
    model = std::move(it->second.model);
    it->second = {"UNLOADED", "", nullptr};
  }
  if (model) model->Stop();
  return absl::OkStatus();
}

void ModelRepository::UnloadAll() {
  std::vector<std::shared_ptr<ServedModel>> models;
  {
    absl::MutexLock lock(&mutex_);
    for (auto& [name, entry] : models_) {
      if (entry.model) models.push_back(std::move(entry.model));
      entry = {"UNLOADED", "", nullptr};
    }
  }
  for (const std::shared_ptr<ServedModel>& model : models) model->Stop();
}

std::vector<ModelIndexEntry> ModelRepository::Index() const {
  std::vector<ModelIndexEntry> index;
  absl::MutexLock lock(&mutex_);
  for (const auto& [name, entry] : models_) index.push_back({name, entry.state, entry.reason});
  return index;
}

absl::StatusOr<std::shared_ptr<ServedModel>> ModelRepository::Find(
    const std::string& name, const std::string& version) const {
  absl::MutexLock lock(&mutex_);
  auto it = models_.find(name);
  if (it == models_.end()) return absl::NotFoundError(absl::StrCat("no model '", name, "'"));
  if (!version.empty() && version != kVersion) {
    return absl::NotFoundError(
        absl::StrCat("model '", name, "' has no version '", version, "' (only ", kVersion, ")"));
  }
  if (it->second.model == nullptr) {
    return absl::UnavailableError(absl::StrCat("model '", name, "' is ", it->second.state,
                                               it->second.reason.empty() ? "" : ": ",
                                               it->second.reason));
  }
  return it->second.model;
}

std::vector<std::pair<std::string, std::shared_ptr<ServedModel>>> ModelRepository::ReadyModels()
    const {
  std::vector<std::pair<std::string, std::shared_ptr<ServedModel>>> ready;
  absl::MutexLock lock(&mutex_);
  for (const auto& [name, entry] : models_) {
    if (entry.model) ready.emplace_back(name, entry.model);
  }
  return ready;
}

}  // namespace server
}  // namespace static_runtime
