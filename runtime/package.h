// Compiled model packages (`.srpkg`): a StaticModule written to one file
// after preparation, so that another process loads it without loading the
// TorchScript archive, freezing it or running a pass. See the README's
// "Compiled packages and the model cache" for the format; in short, a zip
// archive (as torch.jit.save writes, every record CRC-32 checked) holding
//   metadata.json   format, library and LibTorch versions, options, input and
//                   output specs, the source's sha256, kernel counts, arena
//   graph.ir        the prepared graph (load/graph_serialization.h)
//   values.pkl      its value table, tensors in values/<n>
//   packed.json     the oneDNN layouts frozen weights were packed into, with
//                   the packed bytes in packed/<n> (used in place on load)
//   schema.txt      the input schema
//   kernels.txt     each node's kernel kind, checked again on load
//   memory_plan.json the managed tensors' sizes for the planned inputs
//
// SavePackage writes one, LoadPackage (or LoadPackageBytes) reads one; the
// model cache (runtime/model_cache.h) keeps prepared models as packages.
// docs/packages.md describes when they pay.
#ifndef STATIC_RUNTIME_RUNTIME_PACKAGE_H_
#define STATIC_RUNTIME_RUNTIME_PACKAGE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/static_module.h"

namespace static_runtime {

// Bumped whenever the records' meaning changes; a package of another
// version is refused.
inline constexpr int kPackageFormatVersion = 2;

// This library's version, recorded in packages and part of cache keys: a
// package is only loaded by the library version that wrote it.
inline constexpr char kLibraryVersion[] = "0.31.0";

// The LibTorch version this library was built against (TORCH_VERSION).
const char* LibTorchVersion();

// Where a package's model came from, for its metadata.
struct PackageSource {
  std::string path;    // may be empty
  std::string sha256;  // hex digest of the model file's bytes; may be empty
};

// Writes `module` as a package to `path`, atomically (a temporary file in
// the same directory, renamed). With `packed_weights`, the oneDNN layouts the
// kernels have packed frozen weights into so far (on the sample inputs) go in
// too, and a module loaded from the package starts with them. InvalidArgument
// if the graph holds a value a package cannot (a type attribute, a custom
// class object, module state).
absl::Status SavePackage(const StaticModule& module, const std::string& path,
                         const PackageSource& source = {}, bool packed_weights = false);

// The module a package (written by SavePackage or `sr compile`) holds: no
// archive is loaded and no pass runs; the package's options are used.
// InvalidArgument for a damaged or malformed package, FailedPrecondition for
// one written by another library, LibTorch or package format version, or
// whose nodes this build binds to other kernels.
absl::StatusOr<StaticModule::Ptr> LoadPackage(const std::string& path);
absl::StatusOr<StaticModule::Ptr> LoadPackageBytes(absl::string_view bytes);

// The metadata.json record of the package at `path`, checked to be one.
absl::StatusOr<std::string> ReadPackageMetadata(const std::string& path);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_RUNTIME_PACKAGE_H_
