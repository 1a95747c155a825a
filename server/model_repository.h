// ModelRepository: the models of a directory, one per folder: NAME/model.srpkg
// (a compiled package, runtime/package.h) or NAME/model.pt (a TorchScript
// archive, prepared through the ModelCache in the cache directory, so a
// restart loads packages, not archives), with an optional NAME/config.json
// (server/model_config.h). Folders whose names start with "." are not
// models. A model that fails to load is UNAVAILABLE with the reason; the
// others are unaffected. Load() (re)loads one model from its folder, Unload()
// takes it out of service after the requests it holds finish. Thread-safe.
#ifndef STATIC_RUNTIME_SERVER_MODEL_REPOSITORY_H_
#define STATIC_RUNTIME_SERVER_MODEL_REPOSITORY_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/btree_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "server/model_metrics.h"
#include "server/served_model.h"

namespace static_runtime {
namespace server {

enum class EngineKind { kStaticRuntime, kJit };

struct RepositoryOptions {
  std::string directory;
  // Where prepared models are kept (runtime/model_cache.h); empty: none.
  std::string cache_directory;
  EngineKind engine = EngineKind::kStaticRuntime;
};

struct ModelIndexEntry {
  std::string name;
  std::string state;  // READY, UNAVAILABLE, LOADING or UNLOADED
  std::string reason;
};

class ModelRepository {
 public:
  // The version every model is served as.
  static constexpr char kVersion[] = "1";

  explicit ModelRepository(RepositoryOptions options);
  ~ModelRepository();

  // Loads every model folder; true once done, whatever each model's fate.
  void LoadAll();
  bool loaded_all() const;

  // (Re)loads the model in folder `name`: an error says why it is not ready.
  absl::Status Load(const std::string& name);
  // Takes the model out of service; waits for its queued requests.
  absl::Status Unload(const std::string& name);
  // Every model folder and every model known, by name.
  std::vector<ModelIndexEntry> Index() const;

  // The ready model `name` ("" or kVersion for `version`), or kNotFound /
  // kUnavailable saying why not.
  absl::StatusOr<std::shared_ptr<ServedModel>> Find(const std::string& name,
                                                    const std::string& version) const;

  // Every ready model's metrics, by name.
  std::vector<std::pair<std::string, std::shared_ptr<ServedModel>>> ReadyModels() const;

  // Unloads every model (their queued requests finish first).
  void UnloadAll();

 private:
  struct Entry {
    std::string state;
    std::string reason;
    std::shared_ptr<ServedModel> model;
  };

  absl::StatusOr<std::shared_ptr<ServedModel>> LoadFolder(const std::string& name) const;

  const RepositoryOptions options_;
  mutable absl::Mutex mutex_;
  absl::btree_map<std::string, Entry> models_ ABSL_GUARDED_BY(mutex_);
  bool loaded_all_ ABSL_GUARDED_BY(mutex_) = false;
};

}  // namespace server
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_SERVER_MODEL_REPOSITORY_H_
