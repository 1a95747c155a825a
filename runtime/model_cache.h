// ModelCache: a persistent cache of prepared models on disk, kept as compiled
// packages
// (runtime/package.h), one file `<key>.srpkg` per model, where the key is the
// SHA-256 of the model file's bytes, the options, the sample inputs'
// description, and the library, LibTorch and package format versions. The
// model's digest is kept in an index (`digests/`) by the file's identity
// (absolute path, device, inode, size, modification and status-change
// times), so that a hit on an unchanged file neither reads nor hashes it; a
// file changed in any way that shows in those is read and hashed again.
//
// A hit loads the package (no archive load, no pass) and marks the entry
// used (its modification time); a miss prepares the model from its bytes and
// stores the package by writing a temporary file and renaming it, so
// processes filling the cache at once never see a partial entry. An entry
// that does not load (truncated, corrupted, another version) is reported in
// the log once per process, deleted and rebuilt, never trusted. After each
// store, the least recently used entries are evicted until the cache holds
// at most max_bytes(). A cache that cannot be written (a read-only
// directory) only costs the time: the model is still returned.
//
// Nothing uses a cache unless asked: StaticModule::FromFile never does. The
// environment variable STATIC_RUNTIME_CACHE_DIR is read only by
// ModelCache::FromEnvironment, for programs that want to let their operators
// opt in (docs/packages.md).
#ifndef STATIC_RUNTIME_RUNTIME_MODEL_CACHE_H_
#define STATIC_RUNTIME_RUNTIME_MODEL_CACHE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ATen/core/ivalue.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "options/options.h"
#include "runtime/static_module.h"

namespace static_runtime {

// Counts over every ModelCache since the process started, for logs and tests.
struct ModelCacheStats {
  int64_t hits = 0;
  int64_t misses = 0;
  int64_t rejected = 0;  // entries that did not load and were rebuilt
  int64_t evicted = 0;
  int64_t store_failures = 0;
  int64_t model_digests = 0;  // model files read and hashed for their key
};
ModelCacheStats GetModelCacheStats();

// The hex SHA-256 of `bytes`.
std::string Sha256Hex(absl::string_view bytes);

// The entry name (without directory) of a model whose file's bytes have the
// SHA-256 `model_sha256`.
std::string CacheKey(absl::string_view model_sha256, const Options& options,
                     const std::vector<c10::IValue>& sample_inputs);

class ModelCache {
 public:
  static constexpr uint64_t kDefaultMaxBytes = uint64_t{1} << 30;
  static constexpr char kEnvironmentVariable[] = "STATIC_RUNTIME_CACHE_DIR";

  // A cache in `directory` (created when the first entry is stored) whose
  // entries total at most `max_bytes`.
  explicit ModelCache(std::string directory, uint64_t max_bytes = kDefaultMaxBytes);

  // The cache kEnvironmentVariable names, with the default size; nullopt if
  // it is unset or empty.
  static std::optional<ModelCache> FromEnvironment();

  const std::string& directory() const { return directory_; }
  uint64_t max_bytes() const { return max_bytes_; }

  // The TorchScript archive at `path` prepared as StaticModule::FromFile
  // would: from its entry on a hit (no archive load, no pass), prepared and
  // stored on a miss. With Options::enable_tensorexpr_fusion (a hook no
  // package can hold) the model is prepared and nothing is stored.
  absl::StatusOr<StaticModule::Ptr> Load(const std::string& path,
                                         const Options& options = Options(),
                                         const std::vector<c10::IValue>& sample_inputs = {}) const;

 private:
  std::string directory_;
  uint64_t max_bytes_;
};

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_RUNTIME_MODEL_CACHE_H_
