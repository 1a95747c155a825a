#include "runtime/model_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <system_error>

#include "absl/algorithm/container.h"
#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "errors/status_macros.h"
#include "glog/logging.h"
#include "load/load.h"
#include "openssl/evp.h"
#include "runtime/arguments.h"
#include "runtime/package.h"

namespace static_runtime {
namespace {

namespace fs = std::filesystem;

constexpr char kEntrySuffix[] = ".srpkg";
constexpr char kDigestDirectory[] = "digests";
// Digest index entries unused this long are removed.
constexpr auto kStaleDigest = std::chrono::hours(24 * 30);
// Temporary files of writers that died are removed after this long.
constexpr auto kStaleTemporary = std::chrono::hours(1);

struct Counters {
  std::atomic<int64_t> hits{0}, misses{0}, rejected{0}, evicted{0}, store_failures{0},
      model_digests{0};
};
Counters& GlobalCounters() {
  static auto* const counters = new Counters();
  return *counters;
}

// Reports a rejected entry once per process and entry.
void ReportRejected(const std::string& entry, const absl::Status& reason) {
  static absl::Mutex mutex;
  static auto* const reported ABSL_GUARDED_BY(mutex) = new absl::flat_hash_set<std::string>();
  absl::MutexLock lock(&mutex);
  if (reported->insert(entry).second) {
    LOG(WARNING) << "static_runtime: model cache entry '" << entry
                 << "' is unusable and is rebuilt: " << reason.message();
  }
}

// Removes the least recently used entries (and stale temporary files) until
// the entries total at most `max_bytes`; `keep` is never removed.
void Evict(const fs::path& directory, uint64_t max_bytes, const fs::path& keep) {
  struct Entry {
    fs::path path;
    fs::file_time_type used;
    uint64_t bytes;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  std::error_code error;
  const auto now = fs::file_time_type::clock::now();
  for (const fs::directory_entry& file : fs::directory_iterator(directory, error)) {
    std::error_code file_error;
    const std::string name = file.path().filename().string();
    const fs::file_time_type used = file.last_write_time(file_error);
    const uint64_t bytes = file.file_size(file_error);
    if (file_error) continue;  // removed by another process meanwhile
    if (absl::StrContains(name, std::string(kEntrySuffix) + ".tmp.")) {
      if (now - used > kStaleTemporary) fs::remove(file.path(), file_error);
      continue;
    }
    if (!absl::EndsWith(name, kEntrySuffix)) continue;
    entries.push_back({file.path(), used, bytes});
    total += bytes;
  }
  for (const fs::directory_entry& file :
       fs::directory_iterator(directory / kDigestDirectory, error)) {
    std::error_code file_error;
    if (now - file.last_write_time(file_error) > kStaleDigest && !file_error) {
      fs::remove(file.path(), file_error);
    }
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.used < b.used; });
  for (const Entry& entry : entries) {
    if (total <= max_bytes) break;
    if (entry.path == keep) continue;
    std::error_code remove_error;
    if (fs::remove(entry.path, remove_error)) {
      total -= entry.bytes;
      GlobalCounters().evicted.fetch_add(1);
    }
  }
}

// What identifies the file at `path` as it is now: its absolute path,
// device, inode, size and modification and status-change times (the latter
// cannot be set back by a program); nullopt if it cannot be stat'ed.
std::optional<std::string> FileIdentity(const std::string& path) {
  struct stat status;
  std::error_code error;
  const fs::path absolute = fs::absolute(path, error);
  if (error || ::stat(path.c_str(), &status) != 0) return std::nullopt;
  return absl::StrCat(absolute.string(), "\n", status.st_dev, " ", status.st_ino, " ",
                      status.st_size, " ", status.st_mtim.tv_sec, ".", status.st_mtim.tv_nsec, " ",
                      status.st_ctim.tv_sec, ".", status.st_ctim.tv_nsec);
}

fs::path DigestPath(const std::string& directory, const std::string& identity) {
  return fs::path(directory) / kDigestDirectory / Sha256Hex(identity);
}

// The model digest recorded for a file of this identity, if any.
std::optional<std::string> RecordedDigest(const std::string& directory,
                                          const std::string& identity) {
  std::ifstream file(DigestPath(directory, identity));
  std::string recorded_identity, digest;
  if (!std::getline(file, recorded_identity, '\0') || !std::getline(file, digest) ||
      recorded_identity != identity || digest.size() != 64 ||
      !absl::c_all_of(digest, absl::ascii_isxdigit)) {
    return std::nullopt;
  }
  return digest;
}

// Records a model digest (atomically, as entries are written).
void RecordDigest(const std::string& directory, const std::string& identity,
                  const std::string& digest) {
  const fs::path path = DigestPath(directory, identity);
  std::error_code error;
  fs::create_directories(path.parent_path(), error);
  const fs::path temporary = absl::StrCat(path.string(), ".tmp.", getpid());
  {
    std::ofstream file(temporary, std::ios::trunc);
    file << identity << '\0' << digest << "\n";
    if (!file) return;
  }
  fs::rename(temporary, path, error);
  if (error) fs::remove(temporary, error);
}

}  // namespace

ModelCacheStats GetModelCacheStats() {
  const Counters& counters = GlobalCounters();
  ModelCacheStats stats;
  stats.hits = counters.hits.load();
  stats.misses = counters.misses.load();
  stats.rejected = counters.rejected.load();
  stats.evicted = counters.evicted.load();
  stats.store_failures = counters.store_failures.load();
  stats.model_digests = counters.model_digests.load();
  return stats;
}

std::string Sha256Hex(absl::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  CHECK(EVP_Digest(bytes.data(), bytes.size(), digest, &size, EVP_sha256(), nullptr) == 1);
  return absl::BytesToHexString(absl::string_view(reinterpret_cast<const char*>(digest), size));
}

std::string CacheKey(absl::string_view model_sha256, const Options& options,
                     const std::vector<c10::IValue>& sample_inputs) {
  std::string identity = absl::StrCat(
      "model ", model_sha256, "\noptions ", DescribeOptions(options), "\nlibrary ", kLibraryVersion,
      "\nlibtorch ", LibTorchVersion(), "\nformat ", kPackageFormatVersion, "\ninputs");
  for (const c10::IValue& input : sample_inputs) {
    absl::StrAppend(&identity, " ", DescribeValue(input));
  }
  return Sha256Hex(identity);
}

ModelCache::ModelCache(std::string directory, uint64_t max_bytes)
    : directory_(std::move(directory)), max_bytes_(max_bytes) {}

std::optional<ModelCache> ModelCache::FromEnvironment() {
  const char* directory = std::getenv(kEnvironmentVariable);
  if (directory == nullptr || *directory == '\0') return std::nullopt;
  return ModelCache(directory);
}

absl::StatusOr<StaticModule::Ptr> ModelCache::Load(
    const std::string& path, const Options& options,
    const std::vector<c10::IValue>& sample_inputs) const {
  if (options.enable_tensorexpr_fusion) {
    return StaticModule::FromFile(path, options, sample_inputs);
  }
  // The model's bytes are read (and hashed) unless the digest index knows
  // this very file; a miss reads them in any case.
  std::optional<std::string> bytes;
  const std::optional<std::string> identity = FileIdentity(path);
  std::optional<std::string> model_sha256 =
      identity ? RecordedDigest(directory_, *identity) : std::nullopt;
  if (!model_sha256) {
    ASSIGN_OR_RETURN(bytes, ReadModelFile(path));
    model_sha256 = Sha256Hex(*bytes);
    GlobalCounters().model_digests.fetch_add(1);
    if (identity) RecordDigest(directory_, *identity, *model_sha256);
  }
  const fs::path entry =
      fs::path(directory_) / (CacheKey(*model_sha256, options, sample_inputs) + kEntrySuffix);
  std::error_code error;
  if (fs::exists(entry, error)) {
    absl::StatusOr<StaticModule::Ptr> cached = LoadPackage(entry.string());
    if (cached.ok()) {
      GlobalCounters().hits.fetch_add(1);
      fs::last_write_time(entry, fs::file_time_type::clock::now(), error);  // recently used
      return cached;
    }
    GlobalCounters().rejected.fetch_add(1);
    ReportRejected(entry.string(), cached.status());
    fs::remove(entry, error);
  }
  GlobalCounters().misses.fetch_add(1);
  if (!bytes) {
    ASSIGN_OR_RETURN(std::string read, ReadModelFile(path));
    if (Sha256Hex(read) != *model_sha256) {
      return absl::AbortedError(absl::StrCat("'", path, "' changed while it was being loaded"));
    }
    bytes = std::move(read);
  }
  absl::StatusOr<torch::jit::Module> module = LoadModuleFromBytes(*bytes);
  if (!module.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("'", path, "' is ", module.status().message()));
  }
  ASSIGN_OR_RETURN(StaticModule::Ptr prepared,
                   StaticModule::FromModule(*module, /*is_frozen=*/false, options, sample_inputs));
  fs::create_directories(directory_, error);
  absl::Status stored = SavePackage(*prepared, entry.string(), {path, *model_sha256});
  if (!stored.ok()) {
    GlobalCounters().store_failures.fetch_add(1);
    LOG(WARNING) << "static_runtime: cannot store '" << path
                 << "' in the model cache: " << stored.message();
    return prepared;
  }
  Evict(directory_, max_bytes_, entry);
  return prepared;
}

}  // namespace static_runtime
