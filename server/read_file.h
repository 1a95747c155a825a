// ReadFile: a whole file's bytes (config.json, PEM certificates and keys),
// or kNotFound naming the path. ReadTokenFile: a bearer token file's text
// without surrounding whitespace; kInvalidArgument when it holds none.
#ifndef STATIC_RUNTIME_SERVER_READ_FILE_H_
#define STATIC_RUNTIME_SERVER_READ_FILE_H_

#include <string>

#include "absl/status/statusor.h"

namespace static_runtime {
namespace server {

absl::StatusOr<std::string> ReadFile(const std::string& path);
absl::StatusOr<std::string> ReadTokenFile(const std::string& path);

}  // namespace server
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_SERVER_READ_FILE_H_
