// ReadFile: a whole file's bytes (config.json, PEM certificates and keys,
// token files), or kNotFound naming the path.
#ifndef STATIC_RUNTIME_SERVER_READ_FILE_H_
#define STATIC_RUNTIME_SERVER_READ_FILE_H_

#include <string>

#include "absl/status/statusor.h"

namespace static_runtime {
namespace server {

absl::StatusOr<std::string> ReadFile(const std::string& path);

}  // namespace server
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_SERVER_READ_FILE_H_
