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
// StaticModule::SavePackage and StaticModule::FromPackage(Bytes) are the
// entry points (declared in static_module.h, defined in package.cc); this
// header holds what describes a package.
#ifndef STATIC_RUNTIME_RUNTIME_PACKAGE_H_
#define STATIC_RUNTIME_RUNTIME_PACKAGE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

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

// The metadata.json record of the package at `path`, checked to be one.
absl::StatusOr<std::string> ReadPackageMetadata(const std::string& path);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_RUNTIME_PACKAGE_H_
